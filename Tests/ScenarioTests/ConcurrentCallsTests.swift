import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing

/// The operations each example actor is checked with.
enum ConcurrentCallOperations {
  static let counter: [LinearizabilityOperation<VisitCounter, Never>] = [
    .call("increment") { await $0.increment() },
    .call("value") { await $0.value },
  ]

  static let cache: [LinearizabilityOperation<PriceCache, Never>] = [
    .call("price", with: [1, 2]) { await $0.price(of: $1) },
    .call("count") { await $0.count },
  ]

  static let bank: [LinearizabilityOperation<BankAccounts, Never>] = [
    .call("transfer", with: [30, 80]) { try await $0.transfer($1) },
    .call("balances") { await $0.balances },
  ]

  static let queue: [LinearizabilityOperation<SizedQueue, Never>] = [
    .call("push", with: [1, 2]) { await $0.push($1) },
    .call("pop") { await $0.pop() },
    .call("size") { await $0.size() },
  ]
}

/// A running total on the main actor: its methods never suspend.
@MainActor
private final class Tally {
  private(set) var total = 0

  func add(_ amount: Int) -> Int {
    total += amount
    return total
  }
}

/// `checkLinearizability` on the classic bugs of actors under concurrent calls: found within the
/// default budget for every seed tried, shrunk to at most 2 tasks × 2 calls; the correct actors
/// pass.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ConcurrentCallsTests {
  /// The schedules of each scenario of a check that must pass: 20 × 25 runs a check here, which
  /// `scripts/linearizability-soak.sh` scales to 10,000 (`LOCKSTEP_EXPLORE_SCALE=20`).
  static let passing = ExplorationStrategy.random(schedules: 25)
  static let passingRuns = 500

  /// Three seeds from `LOCKSTEP_SEED` (1 by default): `scripts/linearizability-soak.sh` tries more.
  static let seeds = (0..<3).map { Interleavings.sessionSeed &+ UInt64($0) }

  @Test(arguments: seeds)
  func aCounterThatReadsAwaitsAndWritesIsCaught(seed: UInt64) async {
    await expectCaught(seed: seed) { scenarios in
      await checkLinearizability(
        scenarios: scenarios, of: { VisitCounter(variant: .broken) },
        operations: ConcurrentCallOperations.counter)
    }
  }

  @Test(arguments: seeds)
  func aCacheThatChecksAwaitsAndWritesIsCaught(seed: UInt64) async {
    await expectCaught(seed: seed) { scenarios in
      await checkLinearizability(
        scenarios: scenarios, of: { PriceCache(variant: .broken) },
        operations: ConcurrentCallOperations.cache)
    }
  }

  @Test(arguments: seeds)
  func aTransferThatAwaitsBetweenCheckAndDebitIsCaught(seed: UInt64) async {
    await expectCaught(seed: seed) { scenarios in
      await checkLinearizability(
        scenarios: scenarios, of: { BankAccounts(variant: .broken, opening: 100) },
        operations: ConcurrentCallOperations.bank)
    }
  }

  @Test(arguments: seeds)
  func aSizeKeptApartFromTheElementsIsCaught(seed: UInt64) async {
    // Actors run their jobs in order, so `size()` sees a lost update only from a third task, or
    // after two changes: shrinking stops at 3 tasks × 1 call or 2 tasks × 1 call and 1 after.
    await expectCaught(seed: seed, tasks: 3) { scenarios in
      await checkLinearizability(
        scenarios: scenarios, of: { SizedQueue(variant: .broken) },
        operations: ConcurrentCallOperations.queue)
    }
  }

  @Test func theCorrectActorsPass() async {
    let results = await collectingIssues {
      [
        await checkLinearizability(
          Self.passing,
          of: { VisitCounter(variant: .correct) }, operations: ConcurrentCallOperations.counter),
        await checkLinearizability(
          Self.passing,
          of: { PriceCache(variant: .correct) }, operations: ConcurrentCallOperations.cache),
        await checkLinearizability(
          Self.passing,
          of: { BankAccounts(variant: .correct, opening: 100) },
          operations: ConcurrentCallOperations.bank),
        await checkLinearizability(
          Self.passing,
          of: { SizedQueue(variant: .correct) }, operations: ConcurrentCallOperations.queue),
      ]
    }
    expectIssues(results.1, containing: [])
    #expect(results.0.allSatisfy { $0.failure == nil && $0.schedulesRun >= Self.passingRuns })
  }

  @Test func aMainActorClassWhoseMethodsNeverSuspendPasses() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        Self.passing,
        of: { Tally() },
        operations: [
          .call("add", with: [1, 2]) { await $0.add($1) },
          .call("total") { await $0.total },
        ])
    }
    expectIssues(issues, containing: [])
    #expect(result.failure == nil && result.schedulesRun >= Self.passingRuns)
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
  @Test func aMutexProtectedClassWhoseMethodsNeverSuspendPasses() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        Self.passing,
        of: { LockedCounter() },
        operations: [
          .call("increment") { $0.increment() },
          .call("add", with: [1, 2]) { $0.add($1, upTo: 3) },
          .call("value") { $0.value },
        ])
    }
    expectIssues(issues, containing: [])
    #expect(result.failure == nil && result.schedulesRun >= Self.passingRuns)
  }

  /// Runs `check` with the default budget and `seed`, and expects one report of results no order
  /// gives, shrunk to at most `tasks` tasks and 4 calls.
  private func expectCaught(
    seed: UInt64, tasks: Int = 2,
    _ check: (ConcurrentScenarios) async -> LinearizabilityResult,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let (result, issues) = await collectingIssues { await check(.random(seed: seed)) }
    guard let failure = result.failure,
      expectOneIssue(issues, containing: "no order of the calls gives", "Replay it exactly") != nil
    else {
      Issue.record("not caught: \(result)", sourceLocation: sourceLocation)
      return
    }
    #expect(failure.isNotLinearizable, sourceLocation: sourceLocation)
    let lines = failure.calls.split(separator: "\n")
    let columns = lines.first { $0.contains("caller 1") }?.split(separator: "|").count ?? 0
    let calls = failure.calls.count(of: "→")
    #expect(columns <= tasks && calls <= 4, "\(failure.calls)", sourceLocation: sourceLocation)
  }
}

extension String {
  /// How many times `text` occurs.
  fileprivate func count(of text: String) -> Int { components(separatedBy: text).count - 1 }
}
