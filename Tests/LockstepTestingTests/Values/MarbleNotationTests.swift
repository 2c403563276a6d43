import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The notation differences the ValuesOverTime article lists for diagrams written for
/// swift-async-algorithms: each of the other notation's characters is rejected, and the ways to
/// say the same in Lockstep parse as the article says.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct MarbleNotationTests {
  @Test(arguments: ["[ab]-|", "ab-^", "'foo'-|", "ab;-"])
  func theOtherNotationIsRejected(diagram: String) {
    guard case .failure(let error) = MarbleDiagram.parse(diagram) else {
      Issue.record("\(diagram) parsed")
      return
    }
    #expect(error.problem.contains("unknown marble character"))
  }

  @Test func aGroupIsOneTickAndAFailureIsAHash() throws {
    let diagram = try MarbleDiagram.parse("(ab)-#").get()
    #expect(diagram.ticks == [[.value("a"), .value("b")], [], [.failure]])
  }

  @Test func aDiagramWithoutAnEndNeverFinishesAndEndsInTheTickOfItsLastEventWhenSaidSo() throws {
    #expect(try !MarbleDiagram.parse("ab").get().isTerminated)
    let ended = try MarbleDiagram.parse("a(b|)").get()
    #expect(ended.isTerminated)
    #expect(ended.ticks == [[.value("a")], [.value("b"), .finish]])
  }

  @Test func nothingButSpacesFollowsTheEnd() {
    #expect(throws: MarbleSyntaxError.self) { try MarbleDiagram.parse("a|b").get() }
    #expect(throws: MarbleSyntaxError.self) { try MarbleDiagram.parse("(|a)").get() }
    #expect((try? MarbleDiagram.parse("a|  ").get()) != nil)
  }
}
