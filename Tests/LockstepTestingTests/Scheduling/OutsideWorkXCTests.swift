import Dispatch
import Foundation
import XCTest

@testable import LockstepTesting

/// XCTest expectations inside a deterministic run, as a suite wrapped unchanged uses them: the
/// wait of `fulfillment(of:timeout:)` runs on a thread of its own, which is outside work of the
/// run until it resumes it (Linux, where the stand-ins are in effect).
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
    try await withDeterministicScheduling {
      let done = self.expectation(description: "done")
      Task {
        try? await Task.sleep(for: .seconds(3))
        done.fulfill()
      }
      await self.fulfillment(of: [done], timeout: 10)
    }
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

  func testAnInvertedExpectationWaitsOutItsTimeout() async throws {
    try await withDeterministicScheduling {
      let never = self.expectation(description: "never")
      never.isInverted = true
      await self.fulfillment(of: [never], timeout: 0.2)
    }
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
