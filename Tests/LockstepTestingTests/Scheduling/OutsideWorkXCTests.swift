import Dispatch
import Foundation
import XCTest

@testable import LockstepTesting

/// XCTest expectations inside a deterministic run, as a suite wrapped unchanged uses them: the
/// wait of `fulfillment(of:timeout:)` runs on a thread of its own, the run's waiter, whose timeout
/// passes in virtual time (Linux, where the stand-ins are in effect).
final class OutsideWorkXCTests: XCTestCase {
  override func setUp() async throws {
    try XCTSkipUnless(MainQueueHandOff.isInEffect, "Dispatch and threads are not seen here")
  }

  func testAnExpectationFulfilledOnAGlobalQueueIsAwaited() async throws {
    try await withDeterministicScheduling {
      let answered = self.expectation(description: "answered")
      DispatchQueue.global().async {
        usleep(20_000)  // the callback's latency, not a wait of the test
        answered.fulfill()
      }
      await self.fulfillment(of: [answered], timeout: 10)
    }
  }

  func testAnExpectationFulfilledByATaskOfTheRunIsAwaited() async throws {
    let waited = try await withDeterministicScheduling { () -> Duration in
      let started = ContinuousClock.now
      let done = self.expectation(description: "done")
      Task {
        try? await Task.sleep(for: .seconds(3))
        done.fulfill()
      }
      await self.fulfillment(of: [done], timeout: 10)
      return started.duration(to: .now)
    }
    XCTAssertEqual(waited, .seconds(3))
  }

  /// The example of *Which work runs next* → "XCTest expectations": three retries, then giving
  /// up, 7 virtual seconds into a wait of 10.
  func testTheRetryGivesUpAfterThreeAttempts() async throws {
    let waited = try await withDeterministicScheduling { () -> Duration in
      let started = ContinuousClock.now
      let gaveUp = self.expectation(description: "gave up")
      Task {
        for delay in [1, 2, 4] { try? await Task.sleep(for: .seconds(delay)) }
        gaveUp.fulfill()
      }
      await self.fulfillment(of: [gaveUp], timeout: 10)
      return started.duration(to: .now)
    }
    XCTAssertEqual(waited, .seconds(7))
  }

  /// An expectation fulfilled after its timeout, in virtual time, times out as it would without
  /// the run — at once in real time.
  func testAnExpectationTimesOutInVirtualTime() async throws {
    let realStart = RealClockReading.now
    let (result, waited) = try await withDeterministicScheduling(timeout: .seconds(30)) {
      let started = ContinuousClock.now
      let late = self.expectation(description: "late")
      Task {
        try? await Task.sleep(for: .seconds(10))
        late.fulfill()
      }
      let result = await XCTWaiter().fulfillment(of: [late], timeout: 1)
      return (result, started.duration(to: .now))
    }
    XCTAssertEqual(result, .timedOut)
    XCTAssertEqual(waited.rounded(.milliseconds(1)), .seconds(1))
    // A failure bound, not a timing: a real wait would take its 1 s timeout, 10 s for the task.
    XCTAssertLessThan(RealClockReading.now - realStart, .seconds(9))
  }

  /// XCTest's wait in the run, and the tasks it waits for, take the same steps for the same seed:
  /// the run waits for the waiter it woke before its next job, so the waiting task resumes at the
  /// same step however long XCTest's thread takes.
  func testAnExpectationWaitTakesTheSameStepsForTheSameSeed() async throws {
    func steps(seed: UInt64) async throws -> [Int?] {
      let outcome = try await runDeterministically(seed: seed, timeout: .seconds(30)) {
        let done = self.expectation(description: "done")
        let busy = Task {
          try? await Task.sleep(for: .seconds(1))
          done.fulfill()
          for _ in 0..<50 { await Task.yield() }  // steps the resumed wait lands among
        }
        let result = await XCTWaiter().fulfillment(of: [done], timeout: 5)
        await busy.value
        return result
      }
      XCTAssertEqual(outcome.value, .completed)
      return outcome.trace.steps.map(\.task)
    }
    for seed: UInt64 in [1, 2, 3] {
      let once = try await steps(seed: seed)
      for _ in 0..<5 {
        let again = try await steps(seed: seed)
        XCTAssertEqual(again, once, "seed \(seed)")
      }
    }
  }

  /// XCTest's synchronous wait, from a job of the run (a legacy helper): its timeout passes in
  /// virtual time while the job is parked.
  func testASynchronousWaitInAJobTimesOutInVirtualTime() async throws {
    let realStart = RealClockReading.now
    let (result, waited) = try await withDeterministicScheduling(timeout: .seconds(30)) {
      let started = ContinuousClock.now
      let never = self.expectation(description: "never")
      let result = waitSynchronously(for: never, timeout: 2)
      return (result, started.duration(to: .now))
    }
    XCTAssertEqual(result, .timedOut)
    XCTAssertEqual(waited.rounded(.milliseconds(1)), .seconds(2))
    XCTAssertLessThan(RealClockReading.now - realStart, .seconds(20))
  }

  /// The same wait, for an expectation a task of the run fulfils meanwhile.
  func testASynchronousWaitInAJobSeesATaskFulfilIt() async throws {
    let result = try await withDeterministicScheduling(timeout: .seconds(30)) {
      let done = self.expectation(description: "done")
      Task {
        try? await Task.sleep(for: .milliseconds(500))
        done.fulfill()
      }
      return waitSynchronously(for: done, timeout: 5)
    }
    XCTAssertEqual(result, .completed)
  }

  func testAnExpectationFulfilledAfterAnAsyncAfterDelayIsAwaitedInVirtualTime() async throws {
    let started = Date.now
    try await withDeterministicScheduling(timeout: .seconds(30)) {
      let retried = self.expectation(description: "retry")
      DispatchQueue(label: "retrier").asyncAfter(deadline: .now() + 60) { retried.fulfill() }
      await self.fulfillment(of: [retried], timeout: 120)
    }
    // A failure bound, not a timing: the minute of delay was virtual; a real one would take a
    // minute (read outside the run, where `Date` is real).
    XCTAssertLessThan(Date.now.timeIntervalSince(started), 50)
  }

  func testAnInvertedExpectationWaitsOutItsTimeoutInVirtualTime() async throws {
    let realStart = RealClockReading.now
    let waited = try await withDeterministicScheduling(timeout: .seconds(30)) { () -> Duration in
      let started = ContinuousClock.now
      let never = self.expectation(description: "never")
      never.isInverted = true
      await self.fulfillment(of: [never], timeout: 5)
      return started.duration(to: .now)
    }
    XCTAssertEqual(waited.rounded(.milliseconds(1)), .seconds(5))
    // A failure bound, not a timing: a real wait would take the 5 s.
    XCTAssertLessThan(RealClockReading.now - realStart, .seconds(4))
  }

  func testAThreadThatResumesTheRunIsAwaited() async throws {
    let value = try await withDeterministicScheduling {
      await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          usleep(20_000)  // the thread's work, not a wait of the test
          continuation.resume(returning: 7)
        }
      }
    }
    XCTAssertEqual(value, 7)
  }

  /// A synchronous bridge in an XCTest: the job parks in the semaphore's wait while a task of the
  /// run answers (see *Blocking waits*).
  func testASemaphoreBridgeAnsweredByATaskOfTheRunReturns() async throws {
    let answer = try await withDeterministicScheduling(timeout: .seconds(10)) { () -> Int in
      let answered = DispatchSemaphore(value: 0)
      let box = Locked(0)
      Task {
        try? await Task.sleep(for: .seconds(1))
        box.withLock { $0 = 42 }
        answered.signal()
      }
      answered.wait()
      return box.withLock { $0 }
    }
    XCTAssertEqual(answer, 42)
  }
}

/// A synchronous helper that waits for an expectation as legacy test code does.
private func waitSynchronously(for expectation: XCTestExpectation, timeout: TimeInterval) -> XCTWaiter.Result
{
  XCTWaiter().wait(for: [expectation], timeout: timeout)
}

/// Real time, read where a run's clocks are not: outside the run.
private enum RealClockReading {
  static var now: ContinuousClock.Instant { ContinuousClock.now }
}

extension Duration {
  /// The duration rounded to a multiple of `unit`: XCTest computes its deadlines in `Double` seconds.
  fileprivate func rounded(_ unit: Duration) -> Duration {
    unit * Int((self / unit).rounded())
  }
}
