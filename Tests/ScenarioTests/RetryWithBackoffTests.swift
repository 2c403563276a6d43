import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// An operation that fails `failures` times, then answers 42, recording the clock's time at
/// each attempt.
private final class FlakyOperation: Sendable {
  let attempts = EventRecorder<Duration>("attempts")
  private let failures: Int
  private let now: @Sendable () -> Duration

  init(failures: Int, now: @escaping @Sendable () -> Duration) {
    self.failures = failures
    self.now = now
  }

  struct Failure: Error {}

  func callAsFunction() throws -> Int {
    attempts.record(now())
    if attempts.count <= failures { throw Failure() }
    return 42
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RetryWithBackoffTests {
  @Test func retriesAtEachBackoffDeadlineAndNotBefore() async throws {
    let clock = TestClock()
    let operation = FlakyOperation(failures: 2) { clock.now.offset }
    let backoff = Backoff(attempts: 3, initialDelay: .milliseconds(100))
    let retry = Task { try await retrying(backoff, clock: clock) { try operation() } }

    try await clock.waitForSleepers(count: 1)  // attempt 1 failed; waiting 100 ms
    #expect(await clock.advance(by: .milliseconds(99)) == 0)
    #expect(operation.attempts.count == 1)
    await clock.advance(by: .milliseconds(1))
    try await clock.waitForSleepers(count: 1)  // attempt 2 failed; waiting 200 ms
    #expect(await clock.advance(by: .milliseconds(199)) == 0)
    await clock.advance(by: .milliseconds(1))

    #expect(try await retry.value == 42)
    #expect(operation.attempts.values == [.zero, .milliseconds(100), .milliseconds(300)])
  }

  @Test func givesUpAfterTheLastAttempt() async throws {
    let clock = ImmediateClock()
    let operation = FlakyOperation(failures: 5) { clock.now.offset }
    await #expect(throws: FlakyOperation.Failure.self) {
      try await retrying(Backoff(attempts: 3, initialDelay: .seconds(1)), clock: clock) { try operation() }
    }
    #expect(operation.attempts.values == [.zero, .seconds(1), .seconds(3)])
  }

  @Test func cancellationDuringABackoffStopsRetrying() async throws {
    let clock = TestClock()
    let operation = FlakyOperation(failures: 5) { clock.now.offset }
    let retry = Task {
      try await retrying(Backoff(attempts: 5, initialDelay: .seconds(1)), clock: clock) { try operation() }
    }
    try await clock.waitForSleepers(count: 1)
    retry.cancel()
    await #expect(throws: CancellationError.self) { try await retry.value }
    #expect(operation.attempts.count == 1)
    #expect(clock.sleeperCount == 0)
  }
}

final class RetryWithBackoffXCTests: XCTestCase {
  func testAnImmediateClockSkipsEveryWait() async throws {
    let clock = ImmediateClock()
    let operation = FlakyOperation(failures: 2) { clock.now.offset }
    let value = try await retrying(Backoff(attempts: 3, initialDelay: .milliseconds(100)), clock: clock) {
      try operation()
    }
    XCTAssertEqual(value, 42)
    XCTAssertEqual(clock.now.offset, .milliseconds(300))
  }
}
