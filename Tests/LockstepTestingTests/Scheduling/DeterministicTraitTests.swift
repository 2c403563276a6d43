import Dispatch
import LockstepTestSupport
import LockstepTesting
import Testing

/// Five tasks that record their number and yield, four times each: the log is the order in which
/// the scheduler ran them.
@Sendable private func fiveWorkers() async -> [Int] {
  let log = EventRecorder<Int>("log")
  await withTaskGroup(of: Void.self) { group in
    for worker in 1...5 {
      group.addTask {
        for _ in 0..<4 {
          log.record(worker)
          await Task.yield()  // allowed: a choice point for the scheduler, not a guess
        }
      }
    }
  }
  return log.values
}

/// Runs `body` the way Swift Testing runs a test that carries `trait`.
private func runAsATest(
  with trait: DeterministicSchedulingTrait, _ body: @escaping @Sendable () async throws -> Void
) async throws {
  let test = try #require(Test.current)
  try await trait.provideScope(for: test, testCase: Test.Case.current, performing: body)
}

/// The `seed` and `gracePeriod` of the `.deterministic` trait.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DeterministicTraitTests {
  @Test(arguments: [nil, 7, 42] as [UInt64?])
  func theTraitsSeedGivesTheOrderOfARunWithThatSeed(seed: UInt64?) async throws {
    let underTheTrait = EventRecorder<[Int]>("order under the trait")
    try await runAsATest(with: .deterministic(seed: seed)) { underTheTrait.record(await fiveWorkers()) }
    let direct = try await withDeterministicScheduling(seed: seed) { await fiveWorkers() }
    #expect(underTheTrait.values == [direct])
  }

  @Test func differentSeedsUnderTheTraitGiveDifferentOrders() async throws {
    let orders = EventRecorder<[Int]>("orders under the trait")
    for seed in [nil, 7, 42] as [UInt64?] {
      try await runAsATest(with: .deterministic(seed: seed)) { orders.record(await fiveWorkers()) }
    }
    #expect(Set(orders.values).count == 3)
  }

  @Test func withinTheTraitsGracePeriodAJobFromAnotherThreadIsRun() async throws {
    let resumed = EventCounter("resumed from another thread")
    try await runAsATest(with: .deterministic(gracePeriod: .seconds(30))) {
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume() }
      }
      resumed.record()
    }
    #expect(resumed.count == 1)
  }

  @Test func whenTheTraitsGracePeriodRunsOutTheTestFailsWithADeadlock() async throws {
    let waited = EventRecorder<Duration>("time waited until cancelled")
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await runAsATest(with: .deterministic(gracePeriod: .milliseconds(50))) {
        let clock = ContinuousClock()
        let start = clock.now
        let waiter = EventRecorder<CheckedContinuation<Void, any Error>>("waiter")
        try await withTaskCancellationHandler {
          try await withCheckedThrowingContinuation { continuation in waiter.record(continuation) }
        } onCancel: {
          waited.record(clock.now - start)
          waiter.values.first?.resume(throwing: CancellationError())
        }
      }
    }
    #expect(deadlock?.quarantined == false)
    #expect(waited.values.first ?? .zero >= .milliseconds(50))
  }
}
