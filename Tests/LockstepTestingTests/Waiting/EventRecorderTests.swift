import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct EventRecorderTests {
  @Test func waitsForTheCountThenChecksItExactly() async throws {
    let prices = EventRecorder<Int>("price feed")
    let tasks = TestTaskFactory()
    tasks.task {
      for price in [10, 11, 12] { prices.record(price) }
    }
    try await prices.waitForCount(3)
    try await tasks.waitUntilIdle()
    #expect(prices.expectCount(3))
    #expect(prices.values == [10, 11, 12])
  }

  @Test func aWrongCountIsReportedWithExpectedAndActual() async {
    let completion = EventCounter("completion")
    completion.record()
    completion.record()
    let (matched, issues) = await collectingIssues { completion.expectCount(1) }
    #expect(!matched)
    #expect(issues.map(\.message) == ["\"completion\": expected exactly 1 event(s), got 2"])
  }

  @Test func aWrongCountFailsTheSwiftTestingTest() {
    let completion = EventCounter("completion")
    // Known issue on purpose: the subject is how a failed expectation reaches Swift Testing (an
    // issue at the caller's line) when nothing collects it. Every other check of a report
    // collects it with collectingIssues.
    withKnownIssue {
      completion.expectCount(1)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("expected exactly 1 event(s), got 0") }
        && issue.sourceLocation?.fileName == "EventRecorderTests.swift"
    }
  }

  @Test func tooFewEventsTimeOutWithTheCounts() async {
    let feed = EventRecorder<Int>("price feed")
    feed.record(1)
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await feed.waitForCount(3, timeout: .milliseconds(20))
    }
    #expect(error?.pending == ["expected 3, got 1"])
  }

  @Test func stateMachineResolvesWatchersAtTheirTarget() {
    var counts = EventCounts<String>()
    let two = counts.watch(WaiterID(rawValue: 1), target: 2, count: 0, "two")
    let one = counts.watch(WaiterID(rawValue: 2), target: 1, count: 0, "one")
    let first = counts.recorded(count: 1)
    let second = counts.recorded(count: 2)
    let already = counts.watch(WaiterID(rawValue: 3), target: 2, count: 2, "late")
    #expect(two && one && !already)
    #expect(first == ["one"])
    #expect(second == ["two"])
  }
}
