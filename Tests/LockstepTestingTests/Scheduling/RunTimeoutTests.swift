import LockstepTestSupport
import LockstepTesting
import Testing

/// A body that never stops: it yields forever, so it is never stuck either.
@Sendable private func spinForever() async {
  while !Task.isCancelled { await Task.yield() }  // allowed: job after job, forever
}

/// Waits for a continuation that nobody resumes, and ends with `CancellationError` when cancelled.
@Sendable private func waitForAnOutsideJobThatNeverComes() async throws {
  let waiter = EventRecorder<CheckedContinuation<Void, any Error>>("waiter")
  try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { continuation in waiter.record(continuation) }
  } onCancel: {
    waiter.values.first?.resume(throwing: CancellationError())
  }
}

/// Starts a task that waits for a continuation nobody resumes, then spins until cancelled.
@Sendable private func spinBesideAParkedTask() async {
  let parked = Task { await parkUntilCancelled() }
  while !Task.isCancelled { await Task.yield() }  // allowed: job after job, forever
  parked.cancel()
}

/// Waits, in a function a report can name, until its task is cancelled.
@inline(never)
private func parkUntilCancelled() async {
  let waiter = EventRecorder<CheckedContinuation<Void, Never>>("parked")
  await withTaskCancellationHandler {
    await withCheckedContinuation { continuation in waiter.record(continuation) }
  } onCancel: {
    waiter.values.first?.resume()
  }
}

/// The real-time bounds of a deterministic run: `timeout`, and the `gracePeriod` it waits for jobs
/// from other threads. Each test uses a small bound, because the bound is what it tests.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunTimeoutTests {
  @Test func aBodyThatNeverStopsFailsWithTheTimeout() async {
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await withDeterministicScheduling(timeout: .milliseconds(50), spinForever)
    }
    #expect(error?.timeout == .milliseconds(50))
    #expect(error?.awaited.contains("body to finish") == true)
    #expect(error?.site.fileID.description == "LockstepTestingTests/RunTimeoutTests.swift")
    #expect(error?.pending.first?.contains("quarantined") == true)
  }

  @Test func aTimeoutSaysWhereEachTaskWaits() async {
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await withDeterministicScheduling(timeout: .milliseconds(50), spinBesideAParkedTask)
    }
    let pending = error?.pending.joined(separator: "\n") ?? ""
    #expect(pending.contains("task 2"), "\(pending)")
    #expect(
      pending.contains("parkUntilCancelled() at RunTimeoutTests.swift:")
        || pending.contains("Where each task waits is not shown"), "\(pending)")
  }

  @Test func runDeterministicallyHasTheSameTimeout() async {
    let error = await #expect(throws: WaitTimeoutError.self) {
      _ = try await runDeterministically(timeout: .milliseconds(50), spinForever)
    }
    #expect(error?.timeout == .milliseconds(50))
    #expect(error?.awaited.contains("body to finish") == true)
  }

  @Test func aRunStillWaitingForAnOutsideJobWhenTheTimeoutComesFailsWithTheTimeout() async {
    // The grace period outlasts the run's timeout: the timeout ends the run, not a deadlock report.
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await withDeterministicScheduling(
        timeout: .milliseconds(50), gracePeriod: .seconds(30), waitForAnOutsideJobThatNeverComes)
    }
    #expect(error?.timeout == .milliseconds(50))
  }

  @Test func whenTheGracePeriodRunsOutTheRunReportsADeadlock() async {
    // How long the body waited before the run gave up on it and cancelled it.
    let waited = EventRecorder<Duration>("time waited until cancelled")
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling(gracePeriod: .milliseconds(50)) {
        let clock = ContinuousClock()
        let start = clock.now
        try await withTaskCancellationHandler {
          try await waitForAnOutsideJobThatNeverComes()
        } onCancel: {
          waited.record(clock.now - start)
        }
      }
    }
    // The run waited the grace period for a job from outside before it reported the deadlock.
    #expect(waited.values.count == 1)
    #expect(waited.values.first ?? .zero >= .milliseconds(50))
    #expect(deadlock?.quarantined == false)  // cancelling the body unwound it
    #expect(deadlock?.tasks.first?.contains("(the body)") == true)
  }
}
