import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct HistoryTests {
  @Test func recordsCallsWithTheirIdsTasksAndPositions() {
    var calls = History<RegisterOperation, Int?>()
    let write = calls.invoke(.write(1), task: 0, at: 0)
    let read = calls.invoke(.read, task: 1, at: 2)
    calls.respond(to: read, with: 1, at: 3)
    #expect(calls.calls.map(\.id) == [write, read])
    #expect(calls.calls.map(\.task) == [0, 1])
    #expect(calls.calls.map(\.invocation) == [0, 2])
    #expect(calls.calls[write].isPending && calls.calls[write].response == nil)
    #expect(calls.calls[read].response?.position == 3 && calls.calls[read].response?.outcome == 1)
  }

  @Test func ordersCallsThatDidNotOverlapInRealTime() {
    let calls = history([
      Entry(0, RegisterOperation.write(1), 0...2, Int?.none),
      Entry(1, .read, 2...4, 1),  // invoked where the write returned: overlapping
      Entry(2, .read, 3...5, 1),  // invoked after the write returned
      Entry(0, .write(2), from: 6),
    ])
    #expect(calls.precedes(0, 2) && calls.precedes(2, 3) && calls.precedes(1, 3))
    #expect(!calls.precedes(0, 1) && !calls.precedes(1, 0) && !calls.precedes(1, 2))
    #expect(!calls.precedes(2, 0))
    // A pending call precedes nothing.
    #expect(!calls.precedes(3, 0) && !calls.precedes(3, 2))
  }
}
