import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing

// Explorations that hold however the environment scales or shards them: what
// scripts/explore-workers.sh runs under lockstep-explore, to compare its merged first failure and
// token with the unsharded run's, and to time its workers.

/// The demo's race (scenario 7, `swift run lockstep-demo`), found by each kind of strategy.
private let raceFinders: [ExplorationStrategy] = [
  .pct(schedules: 1_000, depth: 2, seed: 7), .random(schedules: 300, seed: 11),
  .exhaustive(maxPreemptions: 2),
]

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ScaledExplorationTests {
  @Test(arguments: raceFinders)
  func theDemoRaceIsTheOnlyFailure(_ strategy: ExplorationStrategy) async {
    let (result, issues) = await collectingIssues {
      await explore(strategy) { try await RaceChecks.twoReloads(variant: .withoutGenerationCheck) }
    }
    // A shard may hold none of the failing schedules; the whole exploration finds one.
    if result.shard == nil { #expect(result.failure != nil, "\(result)") }
    #expect(result.failure.map { $0.failures.count == 1 && $0.failures[0].contains("stale result") } ?? true)
    #expect(issues.count == (result.failure == nil ? 0 : 1), "\(issues.map(\.message))")
  }

  @Test func theCorrectScreenPassesEveryRandomSchedule() async {
    let result = await explore(.random(schedules: 100, seed: 42)) {
      try await RaceChecks.twoReloads(variant: .correct)
    }
    #expect(result.failure == nil && result.isComplete, "\(result)")
  }
}
