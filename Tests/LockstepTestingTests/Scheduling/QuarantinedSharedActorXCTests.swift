import LockstepTesting
import XCTest

/// A global actor singleton, as a new user's app has one.
private actor SharedCounter {
  static let shared = SharedCounter()
  var bumps = 0
  func bump() { bumps += 1 }
}

/// A run that times out while its tasks call a shared actor in a loop leaves the actor free: a
/// later test's ordinary call to it returns. Under XCTest, as a new user measures it: the test
/// case's tasks are main-actor tasks, and each call hops to the actor and back.
final class QuarantinedSharedActorXCTests: XCTestCase {
  func testALaterCallToASharedActorReturnsAfterARunThatTimedOutCallingIt() async throws {
    do {
      try await withDeterministicScheduling(timeout: .milliseconds(300)) {
        for _ in 0..<4 {
          Task { while true { await SharedCounter.shared.bump() } }  // allowed: the endless loop
        }
      }
      XCTFail("the run's tasks never stop: it must time out")
    } catch let error as WaitTimeoutError {
      let pending = error.pending.first ?? ""
      XCTAssertTrue(pending.contains("quarantined"), pending)
      // Its tasks stayed queued on the actor, each behind a new processing job of the actor,
      // through the 10,000 jobs the quarantine ran to free it.
      XCTAssertFalse(pending.contains("stay busy"), pending)
    }
    let called = EventCounter("a later call to the shared actor")
    Task.detached {
      await SharedCounter.shared.bump()
      called.record()
    }
    try await called.waitForCount(1, timeout: .seconds(10))
  }
}
