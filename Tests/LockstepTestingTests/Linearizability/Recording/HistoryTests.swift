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

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CallOutcomeTests {
  private struct Coded: Error, Equatable {
    let code: Int
  }

  private struct Plain: Error, CustomStringConvertible {
    let code: Int
    var description: String { "plain \(code)" }
  }

  @Test func comparesValuesByTheirOwnEqualityAndType() {
    #expect(CallOutcome.returned(3) == .returned(3))
    #expect(CallOutcome.returned(3) != .returned(4))
    #expect(CallOutcome.returned(3) != .returned(Int64(3)))
    #expect(CallOutcome.returned("a") == .returned("a"))
    #expect(CallOutcome.returnedVoid == .returnedVoid)
    #expect(CallOutcome.returnedVoid != .returned(0))
    #expect(CallOutcome.returned(3).kind == .returned)
  }

  @Test func comparesEquatableErrorsByEquality() {
    #expect(CallOutcome.threw(Coded(code: 1)) == .threw(Coded(code: 1)))
    #expect(CallOutcome.threw(Coded(code: 1)) != .threw(Coded(code: 2)))
    #expect(CallOutcome.threw(Coded(code: 1)).kind == .threw)
  }

  @Test func comparesOtherErrorsByTypeAndDescription() {
    #expect(CallOutcome.threw(Plain(code: 1)) == .threw(Plain(code: 1)))
    #expect(CallOutcome.threw(Plain(code: 1)) != .threw(Plain(code: 2)))
    #expect(CallOutcome.threw(Plain(code: 1)) != .threw(Coded(code: 1)))
  }

  @Test func neverEqualsAReturnedValueToAThrownOne() {
    #expect(CallOutcome.threw(Coded(code: 1)) != .returned(Coded(code: 1)))
  }

  @Test func capturesWhatABodyReturnsOrThrows() {
    #expect(CallOutcome.of { 5 } == .returned(5))
    #expect(CallOutcome.of { () throws -> Int in throw Plain(code: 3) } == .threw(Plain(code: 3)))
    #expect(CallOutcome.of { () throws -> Int in throw Plain(code: 3) }.description == "throws plain 3")
    #expect(CallOutcome.returned(5).description == "5")
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CallSetTests {
  @Test func insertsAndRemovesIndexesOnEitherSideOf64() {
    var set = CallSet(capacity: 200)
    for index in [0, 5, 63, 64, 130, 199] { set.insert(index) }
    #expect((0..<200).filter(set.contains) == [0, 5, 63, 64, 130, 199])
    set.remove(63)
    set.remove(130)
    #expect((0..<200).filter(set.contains) == [0, 5, 64, 199])
    var same = CallSet(capacity: 200)
    for index in [199, 64, 5, 0] { same.insert(index) }
    #expect(same == set && same.hashValue == set.hashValue)
  }
}
