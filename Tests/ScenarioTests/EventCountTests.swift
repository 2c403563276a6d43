import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// Scenario 5: events that must happen a given number of times.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct EventCountTests {
  @Test(arguments: Variant.allCases)
  func theCompletionIsCalledExactlyOnceEvenWhenCached(variant: Variant) async throws {
    let tasks = TestTaskFactory()
    let directory = UserDirectory(service: FakeProfileService(), tasks: tasks, variant: variant)

    let firstCompletion = EventCounter("first completion")
    directory.fetchName { _ in firstCompletion.record() }
    try await tasks.waitUntilIdle()
    firstCompletion.expectCount(1)

    let cachedCompletion = EventCounter("cached completion")
    directory.fetchName { _ in cachedCompletion.record() }
    try await tasks.waitUntilIdle()
    // The broken directory answers from its cache and fetches again: the count reports it.
    let (_, issues) = await collectingIssues { cachedCompletion.expectCount(1) }
    expectIssues(
      issues,
      containing: variant == .correct ? [] : ["\"cached completion\": expected exactly 1 event(s), got 2"])
  }

  @Test(arguments: Variant.allCases)
  func theFeedEmitsExactlyThreePrices(variant: Variant) async throws {
    let tasks = TestTaskFactory()
    let prices = EventRecorder<Int>("price feed")
    let feed = PriceFeed(prices: [10, 11, 12], tasks: tasks, variant: variant)

    feed.start { prices.record($0) }
    try await prices.waitForCount(3)
    try await tasks.waitUntilIdle()

    // The broken feed emits the last price twice: the count reports it.
    let (_, issues) = await collectingIssues { prices.expectCount(3) }
    expectIssues(
      issues, containing: variant == .correct ? [] : ["\"price feed\": expected exactly 3 event(s), got 4"])
    #expect(prices.values == (variant == .correct ? [10, 11, 12] : [10, 11, 12, 12]))
  }
}

/// Scenario 5 under the deterministic scheduler: FIFO order, so the feed's task has not begun
/// when the screen starts the feed the second time.
@Suite(.deterministic(), .timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct FeedStartedTwiceTests {
  @Test(arguments: [nil, PriceFeed.Flaw.marksItselfStartedLate])
  func aFeedStartedTwiceEmitsItsPricesOnce(flaw: PriceFeed.Flaw?) async throws {
    let tasks = TestTaskFactory()
    let prices = EventRecorder<Int>("price feed")
    let feed = PriceFeed(prices: [10, 11, 12], tasks: tasks, flaw: flaw)

    feed.start { prices.record($0) }
    feed.start { prices.record($0) }  // the screen appears again, before the feed's task has begun
    try await tasks.waitUntilIdle()

    // The broken feed starts a second time and emits every price twice.
    let (_, issues) = await collectingIssues { prices.expectCount(3) }
    expectIssues(
      issues, containing: flaw == nil ? [] : ["\"price feed\": expected exactly 3 event(s), got 6"])
  }
}

final class EventCountXCTests: XCTestCase {
  func testTheFeedEmitsExactlyThreePrices() async throws {
    let tasks = TestTaskFactory()
    let prices = EventRecorder<Int>("price feed")
    PriceFeed(prices: [10, 11, 12], tasks: tasks).start { prices.record($0) }
    try await prices.waitForCount(3)
    try await tasks.waitUntilIdle()
    prices.expectCount(3)
    XCTAssertEqual(prices.values, [10, 11, 12])
  }

  func testTheBrokenDirectoryIsCaught() async throws {
    let tasks = TestTaskFactory()
    let directory = UserDirectory(service: FakeProfileService(), tasks: tasks, variant: .broken)
    directory.fetchName { _ in }
    try await tasks.waitUntilIdle()
    let completion = EventCounter("cached completion")
    directory.fetchName { _ in completion.record() }
    try await tasks.waitUntilIdle()
    let (matched, issues) = await collectingIssues { completion.expectCount(1) }
    XCTAssertFalse(matched)
    XCTAssertEqual(issues.map(\.message), ["\"cached completion\": expected exactly 1 event(s), got 2"])
  }
}
