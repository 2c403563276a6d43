import LockstepTestSupport
import Testing

@testable import LockstepTesting

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
