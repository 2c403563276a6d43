import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// The throttled saver: at most one save per interval, always of the latest draft, and a save
/// that was done early is not done again.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ThrottledSaverTests {
  @Test(arguments: Variant.allCases)
  func savesTheLatestDraftOnceAnIntervalAfterTheFirstEdit(variant: Variant) async {
    let queue = TestQueue("main")
    let saved = EventRecorder<String>("saved drafts")
    let saver = ThrottledSaver(queue: queue, interval: .seconds(1), variant: variant) { saved.record($0) }

    saver.edit("D")
    await queue.advance(by: .milliseconds(500))
    saver.edit("De")
    saver.edit("Dea")
    await queue.advance(by: .milliseconds(499))
    #expect(saved.values.isEmpty)
    #expect(queue.pendingCount == 1)
    await queue.advance(by: .milliseconds(1))
    #expect(saved.values == ["Dea"])

    saver.edit("Dear")  // a new interval starts
    await queue.advance(by: .seconds(1))
    #expect(saved.values == ["Dea", "Dear"])
    #expect(queue.pendingCount == 0)
  }

  @Test(arguments: Variant.allCases)
  func savingNowCancelsTheScheduledSave(variant: Variant) async {
    let queue = TestQueue("main")
    let saved = EventRecorder<String>("saved drafts")
    let saver = ThrottledSaver(queue: queue, interval: .seconds(1), variant: variant) { saved.record($0) }

    saver.edit("Dear Sir")
    saver.saveNow()  // the app goes to the background
    #expect(saved.values == ["Dear Sir"])
    await queue.advance(by: .seconds(1))
    // The broken saver forgets to cancel the scheduled save and saves twice.
    #expect(saved.values == (variant == .correct ? ["Dear Sir"] : ["Dear Sir", "Dear Sir"]))
  }

  @MainActor @Test func worksFromTheMainActorWithAsyncAfterAndSleepsOnOneTimeline() async throws {
    let clock = TestClock()
    let queue = TestQueue("main", clock: clock)
    let saved = EventRecorder<String>("saved drafts")
    let saver = ThrottledSaver(queue: queue, interval: .seconds(1)) { draft in
      MainActor.assumeIsolated { saved.record(draft) }
    }
    // A typist that waits on the clock between keystrokes, mixed with the saver's scheduled work.
    let typist = Task { @MainActor in
      for draft in ["a", "ab", "abc"] {
        saver.edit(draft)
        try await clock.sleep(for: .milliseconds(600))
      }
    }
    try await clock.waitForSleepers(count: 1)  // "a" typed; save due at 1 s
    await clock.advance(by: .milliseconds(600))  // wakes the typist
    try await clock.waitForSleepers(count: 1)  // "ab" typed
    await clock.advance(by: .milliseconds(600))  // 1.2 s: the save at 1 s ran first, with "ab"
    #expect(saved.values == ["ab"])
    try await clock.waitForSleepers(count: 1)  // "abc" typed at 1.2 s; save due at 2.2 s
    await clock.run()
    try await typist.value
    #expect(saved.values == ["ab", "abc"])
    #expect(clock.now.offset == .milliseconds(2200))
  }
}

final class ThrottledSaverXCTests: XCTestCase {
  func testSavesOnceAfterTheInterval() async {
    let queue = TestQueue()
    let saved = EventRecorder<String>("saved")
    let saver = ThrottledSaver(queue: queue, interval: .seconds(1)) { saved.record($0) }
    saver.edit("a")
    saver.edit("ab")
    await queue.advance(by: .seconds(1))
    XCTAssertEqual(saved.values, ["ab"])
  }

  func testTheBrokenSaverIsCaught() async {
    let queue = TestQueue()
    let saved = EventRecorder<String>("saved")
    let saver = ThrottledSaver(queue: queue, interval: .seconds(1), variant: .broken) { saved.record($0) }
    saver.edit("a")
    saver.saveNow()
    await queue.advance(by: .seconds(1))
    XCTAssertEqual(saved.values, ["a", "a"], "the broken saver saves twice")
  }
}
