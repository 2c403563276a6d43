import Foundation
import LockstepExamples
import LockstepTesting

/// The exploration did not do what the benchmark needs (a correct model failed, a run was
/// refused): its figures would mean nothing.
private struct ExplorationMisbehaved: Error, CustomStringConvertible {
  let description: String
}

/// One run of scenario 7's two-reload check, without timeline notes (the loader's default).
private func twoReloads(_ variant: BookScreenModel.Variant) -> @Sendable () async throws -> Void {
  { try await RaceChecks.twoReloads(variant: variant) }
}

/// The schedule at which `strategy` first finds the stale result of the broken model, or nil.
/// Only the search is counted: `ExplorationFailure.schedule` leaves out the runs spent shrinking.
private func schedulesToFind(_ strategy: ExplorationStrategy) async -> Int? {
  let (result, _) = await collectingIssues {
    await explore(strategy, twoReloads(.withoutGenerationCheck))
  }
  return result.failure?.schedule
}

private func mean(_ values: [Int]) -> Double {
  values.isEmpty ? .nan : Double(values.reduce(0, +)) / Double(values.count)
}

private func median(_ values: [Int]) -> Double {
  guard !values.isEmpty else { return .nan }
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count.isMultiple(of: 2)
    ? Double(sorted[middle - 1] + sorted[middle]) / 2 : Double(sorted[middle])
}

func explorationCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Race finder: two-reload scenario") {
    let schedules = quick ? 500 : 2_000
    let repetitions = quick ? 3 : 5
    let seeds: [UInt64] = Array(1...(quick ? 20 : 100))
    let budget = 1_000
    var results: [Measurement] = []

    // (a) Throughput: the correct model, which passes every schedule, so every schedule runs.
    var failure: String?
    let elapsed = await medianSeconds(repetitions: repetitions) {
      let (result, issues) = await collectingIssues {
        await explore(.random(schedules: schedules, seed: 42), twoReloads(.correct))
      }
      if result.schedulesRun != schedules || result.failure != nil || !issues.isEmpty {
        failure = "\(result)\n" + issues.map(\.message).joined(separator: "\n")
      }
    }
    if let failure { throw ExplorationMisbehaved(description: failure) }
    let perSecond = Double(schedules) / elapsed
    results.append(
      Measurement(
        benchmarkCase: "race-throughput",
        metric: "correct model, random(\(schedules)), schedules/s", value: perSecond,
        unit: "sched/s", baseline: nil, ratio: perSecond / 5_000, goal: "≥ 5,000 schedules/s",
        met: perSecond >= 5_000))

    // (b) How soon each strategy finds the stale result, over many seeds.
    let strategies: [(key: String, label: String, make: (UInt64) -> ExplorationStrategy)] = [
      ("random", "random", { .random(schedules: budget, seed: $0) }),
      ("pct", "pct(2)", { .pct(schedules: budget, depth: 2, seed: $0) }),
    ]
    var randomMean: Double?
    for strategy in strategies {
      var found: [Int] = []
      for seed in seeds {
        if let schedule = await schedulesToFind(strategy.make(seed)) { found.append(schedule) }
      }
      let everySeed = found.count == seeds.count
      let goal = "found by every seed (\(found.count)/\(seeds.count), ≤ \(budget) schedules)"
      let average = mean(found)
      if strategy.key == "random" { randomMean = average }
      results.append(
        Measurement(
          benchmarkCase: "race-find-\(strategy.key)-mean",
          metric: "\(strategy.label): schedules to find the bug, mean", value: average,
          unit: "sched", baseline: strategy.key == "random" ? nil : randomMean,
          ratio: strategy.key == "random" ? nil : randomMean.map { average / $0 }, goal: goal,
          met: everySeed))
      results.append(
        Measurement(
          benchmarkCase: "race-find-\(strategy.key)-median",
          metric: "\(strategy.label): schedules to find the bug, median", value: median(found),
          unit: "sched", baseline: nil, ratio: nil, goal: goal, met: everySeed))
    }
    return results
  }
}
