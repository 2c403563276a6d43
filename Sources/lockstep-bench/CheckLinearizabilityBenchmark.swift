import Foundation
import LockstepExamples
import LockstepTesting

// checkLinearizability benchmark: scenario runs per second of a whole check of a small actor (a
// correct `VisitCounter`, 3 tasks × 3 calls, 100 schedules per scenario), the object itself as
// the specification and with a model, against `explore` running the same calls with no recording
// and no verdict; and what judging one run costs (the check, less the same check with its
// verdicts skipped) against the run itself (the check with its verdicts skipped), in one run.

private let operations: [LinearizabilityOperation<VisitCounter, Never>] = [
  .call("increment") { await $0.increment() },
  .call("value") { await $0.value },
]

private let modelled: [LinearizabilityOperation<VisitCounter, Int>] = [
  .call(
    "increment", { await $0.increment() },
    model: { count in
      count += 1
      return count
    }),
  .call("value", { await $0.value }, model: { count in count }),
]

/// 3 tasks × 3 calls each, nothing before or after.
private func scenarios(_ count: Int) -> ConcurrentScenarios {
  .random(count, tasks: 3...3, callsPerTask: 3...3, callsBefore: 0...0, callsAfter: 0...0, seed: 5)
}

func checkLinearizabilityCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(
    name: "Linearizability: checkLinearizability of a small actor, runs per second vs explore"
  ) {
    let count = quick ? 4 : 20
    let schedules = 100
    var runs = 0
    var failures: [String] = []
    let checkObject: () async -> Void = {
      let result = await checkLinearizability(
        .random(schedules: schedules), scenarios: scenarios(count),
        of: { VisitCounter(variant: .correct) }, operations: operations)
      runs = result.schedulesRun
      if let failure = result.failure { failures.append(failure.description) }
    }
    let checkModel: () async -> Void = {
      let result = await checkLinearizability(
        .random(schedules: schedules), scenarios: scenarios(count),
        of: { VisitCounter(variant: .correct) }, model: 0, operations: modelled)
      if let failure = result.failure { failures.append(failure.description) }
    }
    // The same calls under explore: 3 tasks, each 3 calls picked like a scenario's.
    let exploreOnly: () async -> Void = {
      for index in 0..<count {
        let picks = (0..<9).map { ($0 * 7 + index) % 2 }
        await explore(.random(schedules: schedules, seed: UInt64(index))) {
          let counter = VisitCounter(variant: .correct)
          await withTaskGroup(of: Void.self) { group in
            for task in 0..<3 {
              group.addTask {
                for call in 0..<3 {
                  if picks[task * 3 + call] == 0 {
                    _ = await counter.increment()
                  } else {
                    _ = await counter.value
                  }
                }
              }
            }
          }
        }
      }
    }
    let (object, explored) = await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
      _ = await collectingIssues { await checkObject() }
    } _: {
      _ = await collectingIssues { await exploreOnly() }
    }
    let (model, unjudged) = await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
      _ = await collectingIssues { await checkModel() }
    } _: {
      _ = await RunJudging.$isSkipped.withValue(true) { await collectingIssues { await checkObject() } }
    }
    try require(failures.isEmpty, "a correct counter was reported: \(failures.first ?? "")")
    try require(runs == count * schedules, "ran \(runs) runs, not \(count * schedules)")
    let total = Double(count * schedules)
    let run = unjudged / total * 1e6
    return [
      .compared(
        "checkLinearizability", "3 tasks × 3 calls, the object as specification: runs per second",
        total / object, "runs/s", against: "explore of the same calls, unrecorded",
        baseline: total / explored, goal: "at least 5,000 runs/s", met: total / object >= 5_000),
      .compared(
        "checkLinearizability", "3 tasks × 3 calls, with a model: runs per second", total / model,
        "runs/s", against: "explore of the same calls, unrecorded", baseline: total / explored,
        goal: "at least 5,000 runs/s", met: total / model >= 5_000),
      .compared(
        "checkLinearizability", "judging one run, the object as specification",
        (object - unjudged) / total * 1e6, "µs", against: "the run itself, recorded, unjudged",
        baseline: run, goal: "less than the run", met: object - unjudged < unjudged),
      .compared(
        "checkLinearizability", "judging one run, with a model", (model - unjudged) / total * 1e6,
        "µs", against: "the run itself, recorded, unjudged", baseline: run,
        goal: "less than the run", met: model - unjudged < unjudged),
    ]
  }
}
