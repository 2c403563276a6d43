import LockstepExamples
import LockstepTesting
import Testing
import XCTest

/// Scenario 6: work that must stop when cancelled.
@MainActor @Suite(.timeLimit(.minutes(1)))
struct ActivityTrackerTests {
  @Test(arguments: Variant.allCases)
  func stopEndsTheTrackerEarly(variant: Variant) async throws {
    let source = GatedReadingSource(ready: 3)
    let tasks = TestTaskFactory()
    let tracker = ActivityTracker(source: source, tasks: tasks, variant: variant)

    tracker.start()
    // It has really started: three readings in, waiting for the fourth.
    try await source.gate.waitForArrivals(1)
    tracker.stop()
    try await tasks.waitUntilIdle()  // it has wound down

    #expect(tracker.readings == [1, 2, 3])
    withKnownIssue("the broken tracker retries after cancellation until its safety limit") {
      #expect(tracker.attempts == 4)
    } when: {
      variant == .broken
    }
  }
}

final class ActivityTrackerXCTests: XCTestCase {
  @MainActor func testStopEndsTheTrackerEarly() async throws {
    let source = GatedReadingSource(ready: 3)
    let tasks = TestTaskFactory()
    let tracker = ActivityTracker(source: source, tasks: tasks)
    tracker.start()
    try await source.gate.waitForArrivals(1)
    tracker.stop()
    try await tasks.waitUntilIdle()
    XCTAssertEqual(tracker.attempts, 4)
  }
}
