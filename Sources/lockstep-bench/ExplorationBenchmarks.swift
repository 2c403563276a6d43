import Foundation
import LockstepExamples
import LockstepTesting

/// One run of scenario 7's two-reload check, without timeline notes (the loader's default).
private func twoReloads(_ variant: BookScreenModel.Variant) -> @Sendable () async throws -> Void {
  { try await RaceChecks.twoReloads(variant: variant) }
}

/// What the broken model's one bug looks like: `RaceChecks.twoReloads` throws this when the late
/// answer to reload 1 overwrote reload 2's book.
private let staleResult = "stale result: both reloads finished and the screen shows \"Book 1\""

/// The schedule at which `strategy` first finds the stale result of the broken model, or nil if it
/// ran its schedules without a failure. Only the search is counted: `ExplorationFailure.schedule`
/// leaves out the runs spent shrinking. Any other failure (a deadlock, a misuse report, another
/// message) is not the bug being looked for: it fails the case.
private func schedulesToFind(_ strategy: ExplorationStrategy) async throws -> Int? {
  let (result, collected) = await collectingIssues {
    await explore(strategy, twoReloads(.withoutGenerationCheck))
  }
  let issues = failures(collected)
  guard let failure = result.failure else {
    try require(issues.isEmpty, "explore(.\(strategy)) reported \(issues.map(\.message))")
    return nil
  }
  try require(
    failure.failures.count == 1 && failure.failures[0].contains(staleResult),
    "explore(.\(strategy)) found a failure that is not the stale result: \(failure.failures)")
  try require(
    // The report is the failure's description, and the line that says where its picture is.
    issues.count == 1 && issues.allSatisfy { $0.message.hasPrefix(failure.description) },
    "explore(.\(strategy)) reported other issues than its failure: \(issues.map(\.message))")
  return failure.schedule
}

/// Runs the correct model's check `schedules` times on the normal executors, or, with `seeded`,
/// as that many separate seeded deterministic runs: the work of an exploration of that many
/// schedules, without the exploration.
private func runTwoReloads(_ schedules: Int, seeded: Bool) async throws {
  for seed in 1...UInt64(schedules) {
    if seeded {
      try await withDeterministicScheduling(seed: seed) { try await RaceChecks.twoReloads(variant: .correct) }
    } else {
      try await RaceChecks.twoReloads(variant: .correct)
    }
  }
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

    // (a) Throughput: the correct model, which passes every schedule, so every schedule runs;
    // against the same body run as many times as plain seeded deterministic runs, and on the
    // normal executors. The three are measured in turns so that load hits them alike.
    var wrongExplorations: [String] = []
    nonisolated(nonsending) func exploreOnce() async {
      let (result, issues) = await collectingIssues {
        await explore(.random(schedules: schedules, seed: 42), twoReloads(.correct))
      }
      if result.schedulesRun != schedules || result.failure != nil || !failures(issues).isEmpty {
        wrongExplorations.append("\(result)\n" + issues.map(\.message).joined(separator: "\n"))
      }
    }
    var explored: [Double] = []
    var seeded: [Double] = []
    var plain: [Double] = []
    for repetition in 0...repetitions {  // the first turn warms up
      let samples = (
        await seconds { await exploreOnce() },
        try await seconds { try await runTwoReloads(schedules, seeded: true) },
        try await seconds { try await runTwoReloads(schedules, seeded: false) }
      )
      if repetition == 0 { continue }
      explored.append(samples.0)
      seeded.append(samples.1)
      plain.append(samples.2)
    }
    try require(
      wrongExplorations.isEmpty,
      "exploring the correct model did not pass every schedule: \(wrongExplorations[0])")
    let perSecond = Double(schedules) / median(explored)
    results.append(
      .compared(
        "race-throughput", "correct model, random(\(schedules)), schedules/s", perSecond, "sched/s",
        against: "the same body as \(schedules) plain seeded withDeterministicScheduling runs",
        baseline: Double(schedules) / median(seeded), goal: "≥ 0.5",
        met: median(seeded) / median(explored) >= 0.5))
    results.append(
      .compared(
        "race-throughput-normal", "correct model, random(\(schedules)), schedules/s", perSecond,
        "sched/s", against: "the same body run \(schedules) times on the normal executors",
        baseline: Double(schedules) / median(plain)))

    // (b) How soon each strategy finds the stale result, over many seeds.
    let strategies: [(key: String, label: String, make: (UInt64) -> ExplorationStrategy)] = [
      ("random", "random", { .random(schedules: budget, seed: $0) }),
      ("pct", "pct(2)", { .pct(schedules: budget, depth: 2, seed: $0) }),
    ]
    var randomMean: Double?
    for strategy in strategies {
      var found: [Int] = []
      for seed in seeds {
        if let schedule = try await schedulesToFind(strategy.make(seed)) { found.append(schedule) }
      }
      try require(
        !found.isEmpty,
        "\(strategy.label) found the stale result with none of \(seeds.count) seeds in "
          + "\(budget) schedules each")
      let average = mean(found)
      let key = "race-find-\(strategy.key)"
      let metric = "\(strategy.label): schedules to find the stale result"
      if let randomMean {
        results.append(
          .compared(
            "\(key)-mean", "\(metric), mean", average, "sched", against: "random, same seeds",
            baseline: randomMean))
      } else {
        randomMean = average
        results.append(.figure("\(key)-mean", "\(metric), mean", average, "sched"))
      }
      results.append(.figure("\(key)-median", "\(metric), median", median(found), "sched"))
      results.append(
        .compared(
          "\(key)-seeds", "\(strategy.label): seeds that found it within \(budget) schedules",
          Double(found.count), "seeds", against: "the seeds tried", baseline: Double(seeds.count),
          goal: "= 1", met: found.count == seeds.count))
    }
    return results
  }
}
