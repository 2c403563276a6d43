import Foundation
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Suspends until the task is cancelled.
private func waitUntilCancelled() async {
  let parked = Locked<UnsafeContinuation<Void, Never>?>(nil)
  await withTaskCancellationHandler {
    await withUnsafeContinuation { continuation in
      parked.withLock { $0 = continuation }
      if Task.isCancelled { parked.withLock { $0.take() }?.resume() }
    }
  } onCancel: {
    parked.withLock { $0.take() }?.resume()
  }
}

/// Suspends for good (a continuation nobody resumes; cancellation does not end it).
private func waitForGood() async {
  await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
}

/// What happens after a deadlock is reported, while the run unwinds its cancelled body.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DeadlockUnwindingTests {
  @Test func virtualTimeStandsStillWhileTheBodyUnwinds() async throws {
    let timerFired = Locked(false)
    let error = await #expect(throws: DeterministicDeadlock.self) {
      _ = try await runDeterministically {
        await waitUntilCancelled()
        // Once cancelled, a shutdown timer of 5 s starts in a task of its own (not cancelled):
        // the run gave up, so it must not see those 5 s pass.
        Task {
          try? await Task.sleep(for: .seconds(5))
          timerFired.withLock { $0 = true }
        }
        await waitForGood()
      }
    }
    #expect(error?.quarantined == true)
    #expect(error?.virtualTime == .zero, "\(String(describing: error))")
    #expect(!timerFired.withLock { $0 })
  }

  /// The report says where each task was stuck when the deadlock was found — not where the
  /// unwind left it — and that the jobs after were the unwind's.
  @Test func theReportKeepsTheMomentOfTheDeadlock() async throws {
    let error = await #expect(throws: DeterministicDeadlock.self) {
      _ = try await runDeterministically {
        await waitUntilCancelled()
        await Task.yield()  // a job of the unwind
        await waitForGood()
      }
    }
    let text = String(describing: error)
    #expect(text.contains("in waitUntilCancelled() at DeadlockUnwindingTests.swift"), "\(text)")
    #expect(!text.contains("waits at waitForGood()"), "\(text)")
    #expect(text.contains("when the deadlock was found, after 1 jobs"), "\(text)")
    #expect(text.contains("consequences of the unwind"), "\(text)")
  }

  @Test func aJobFromAnotherThreadWithoutAGracePeriodSuggestsOne() async throws {
    let error = await #expect(throws: DeterministicDeadlock.self) {
      _ = try await runDeterministically {
        let parked = EventCounter("a task parked on its continuation")
        let continuation = Locked<CheckedContinuation<Void, Never>?>(nil)
        let task = Task {
          await withCheckedContinuation { (parkedHere: CheckedContinuation<Void, Never>) in
            continuation.withLock { $0 = parkedHere }
            parked.record()
          }
          await waitForGood()
        }
        try await parked.waitForCount(1, timeout: .seconds(10))
        // Another thread resumes the parked task: a job of the run from outside it.
        let resumed = DispatchSemaphore(value: 0)
        Thread {
          continuation.withLock { $0.take() }?.resume()
          resumed.signal()
        }.start()
        resumed.wait()
        await task.value
      }
    }
    #expect(
      error?.description.contains("give it time with gracePeriod:") == true, "\(String(describing: error))")
  }

  @Test func aDeadlockWithoutWorkFromOutsideSaysNothingOfAGracePeriod() async throws {
    let error = await #expect(throws: DeterministicDeadlock.self) {
      _ = try await runDeterministically { await waitForGood() }
    }
    #expect(error?.description.contains("gracePeriod") == false, "\(String(describing: error))")
  }
}
