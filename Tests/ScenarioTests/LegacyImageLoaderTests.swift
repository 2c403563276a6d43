import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

private let avatar = "https://example.com/avatar.png"

/// A download that answers from a table, at once (it runs on the background queue).
private let table: @Sendable (String) -> [UInt8]? = { url in
  url == avatar ? [UInt8](repeating: 0, count: 512) : nil
}

/// The legacy image loader must deliver every result on the main queue, exactly once.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct LegacyImageLoaderTests {
  @MainActor @Test(arguments: Variant.allCases)
  func theResultIsDeliveredOnlyOnTheMainQueue(variant: Variant) {
    let clock = TestClock()
    let main = TestQueue("main", clock: clock)
    let background = TestQueue("background", clock: clock)
    let loader = LegacyImageLoader(background: background, main: main, variant: variant, download: table)
    let delivered = EventRecorder<LoadedImage?>("delivered images")

    loader.load(avatar) { image in delivered.record(image) }
    #expect(background.pendingCount == 1)
    #expect(delivered.values.isEmpty)

    background.runDueWork()  // downloads, then must hop to main
    // The broken loader calls the completion on the background queue, before main runs.
    if variant == .correct {
      #expect(delivered.values.isEmpty, "delivered before the main queue ran")
      #expect(main.pendingCount == 1)
    } else {
      #expect(delivered.values == [LoadedImage(url: avatar, byteCount: 512)])
      #expect(main.pendingCount == 0)
    }

    main.runDueWork()
    #expect(delivered.values == [LoadedImage(url: avatar, byteCount: 512)])
  }

  @MainActor @Test func aFailedDownloadIsDeliveredOnTheMainQueueToo() async throws {
    let main = TestQueue("main")
    let background = TestQueue("background", clock: main.clock)
    let loader = LegacyImageLoader(background: background, main: main, download: table)
    let image = try await withCallback("missing image delivered") { done in
      loader.load("https://example.com/missing.png", completion: done)
      #expect(background.runDueWork() == 1)
      #expect(main.runDueWork() == 1)
    }
    #expect(image == nil)
  }

  @MainActor @Test func awaitingTheCompletionReturnsTheImage() async throws {
    let main = TestQueue("main")
    let background = TestQueue("background", clock: main.clock)
    let loader = LegacyImageLoader(background: background, main: main, download: table)
    let image = try await withCallback("avatar loaded") { done in
      loader.load(avatar) { image in
        MainActor.assumeIsolated { done(image) }  // as a view controller would
      }
      await main.run()  // runs the work of every queue on the clock
    }
    #expect(image?.byteCount == 512)
  }
}

final class LegacyImageLoaderXCTests: XCTestCase {
  @MainActor func testDeliversOnTheMainQueue() async {
    let main = TestQueue("main")
    let background = TestQueue("background", clock: main.clock)
    let loader = LegacyImageLoader(background: background, main: main, download: table)
    let delivered = EventRecorder<LoadedImage?>("delivered")
    loader.load(avatar) { delivered.record($0) }
    background.runDueWork()
    XCTAssertTrue(delivered.values.isEmpty)
    main.runDueWork()
    XCTAssertEqual(delivered.values, [LoadedImage(url: avatar, byteCount: 512)])
  }

  @MainActor func testTheBrokenLoaderIsCaught() async {
    let main = TestQueue("main")
    let background = TestQueue("background", clock: main.clock)
    let loader = LegacyImageLoader(background: background, main: main, variant: .broken, download: table)
    let delivered = EventRecorder<LoadedImage?>("delivered")
    loader.load(avatar) { delivered.record($0) }
    background.runDueWork()
    XCTAssertEqual(delivered.count, 1, "the broken loader delivers on the background queue")
    XCTAssertEqual(main.pendingCount, 0)
  }
}
