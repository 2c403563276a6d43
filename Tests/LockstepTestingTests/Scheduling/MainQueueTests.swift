import Dispatch
import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// Blocks a run's jobs put on the main queue run, on the main queue, without a deadlock report
/// that is not one; on Linux they are the run's own main-actor tasks, in its order and its time.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct MainQueueTests {
  @MainActor @Test func aMainActorCallersRunWaitsForAMainQueueBlockWithoutADeadlock() async throws {
    let ranOnMainQueue = try await runDeterministically {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue.main.async { continuation.resume(returning: onTheMainQueue()) }
      }
    }.value
    #expect(ranOnMainQueue)
  }

  @Test func aNonisolatedCallersRunWaitsForAMainQueueBlockWithoutADeadlock() async throws {
    let ranOnMainQueue = try await runDeterministically {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue.main.async { continuation.resume(returning: onTheMainQueue()) }
      }
    }.value
    #expect(ranOnMainQueue)
  }

  @Test(.enabled(if: MainQueueHandOff.isInEffect))
  func aMainQueueBlockIsATaskOfTheRunInItsOrder() async throws {
    let log = Locked<[String]>([])
    let outcome = try await runDeterministically {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async {
          log.withLock { $0.append("block") }
          continuation.resume()
        }
        log.withLock { $0.append("after queueing") }
      }
    }
    #expect(log.value == ["after queueing", "block"])
    #expect(outcome.trace.steps.contains { $0.isMainActor })
  }

  @Test(.enabled(if: MainQueueHandOff.isInEffect && VirtualNow.isInEffect))
  func asyncAfterWaitsItsDelayInVirtualTime() async throws {
    let outcome = try await runDeterministically {
      let start = ContinuousClock.now
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) { continuation.resume() }
      }
      return start.duration(to: .now)
    }
    #expect(outcome.value == .milliseconds(300))
    #expect(outcome.trace.steps.last?.time == .milliseconds(300))
  }

  @Test(.enabled(if: MainQueueHandOff.isInEffect))
  func aMainQueueBlockOfAJobOutsideRunsIsUntouched() async {
    // Queued from a thread that runs no run's job: the real main queue runs it.
    let ranOnMainQueue = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      DispatchQueue.main.async { continuation.resume(returning: onTheMainQueue()) }
    }
    #expect(ranOnMainQueue)
  }
}

final class MainQueueXCTests: XCTestCase {
  @MainActor func testAMainQueueBlockOfARunRunsOnTheMainThread() async throws {
    let onMain = try await runDeterministically {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue.main.async { continuation.resume(returning: Thread.isMainThread && onTheMainQueue()) }
      }
    }.value
    XCTAssertTrue(onMain)
  }
}
