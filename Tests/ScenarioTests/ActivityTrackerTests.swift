import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// Scenario 6: work that must stop when cancelled.
@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ActivityTrackerTests {
  @Test(arguments: Variant.allCases)
  func stopEndsTheTrackerEarly(variant: Variant) async throws {
    let (readings, attempts) = try await runTrackerUntilStopped(variant)

    #expect(readings == [1, 2, 3])
    // The broken tracker retries after cancellation until its safety limit: the check that the
    // correct one passes is the one the broken one fails.
    #expect(attempts == (variant == .correct ? 4 : 1000))
  }

  @Test(arguments: [nil, ActivityTracker.Flaw.recordsAReadingThatArrivesAfterStop])
  func aReadingThatArrivesAfterStopIsDropped(flaw: ActivityTracker.Flaw?) async throws {
    let source = HeldReadingSource()
    let tasks = TestTaskFactory()
    let tracker = ActivityTracker(source: source, tasks: tasks, flaw: flaw)

    tracker.start()
    try await source.measurement.waitForArrivals(1)  // a reading is on its way
    tracker.stop()
    source.measurement.open()  // it arrives anyway
    try await tasks.waitUntilIdle()

    // The broken tracker records the reading that arrived after stop().
    #expect(tracker.readings == (flaw == nil ? [] : [1]))
  }
}

final class ActivityTrackerXCTests: XCTestCase {
  @MainActor func testStopEndsTheTrackerEarly() async throws {
    let (_, attempts) = try await runTrackerUntilStopped(.correct)
    XCTAssertEqual(attempts, 4)
  }
}
