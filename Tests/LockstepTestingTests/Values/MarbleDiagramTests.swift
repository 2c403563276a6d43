import LockstepTestSupport
import Testing

@testable import LockstepTesting

private typealias Symbol = MarbleDiagram.Symbol

private func parse(_ text: String) -> MarbleDiagram? {
  try? MarbleDiagram.parse(text).get()
}

private func problem(_ text: String) -> MarbleSyntaxError? {
  if case .failure(let error) = MarbleDiagram.parse(text) { return error }
  return nil
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct MarbleDiagramTests {
  // MARK: Parsing

  @Test func oneCharacterIsOneTick() {
    #expect(
      parse("a-b|")?.ticks == [[.value("a")], [], [.value("b")], [.finish]])
    #expect(parse("--#")?.ticks == [[], [], [.failure]])
    #expect(parse("a1-")?.ticks == [[.value("a")], [.value("1")], []])
    #expect(parse("")?.ticks == [])
  }

  @Test func aGroupIsOneTick() {
    #expect(parse("(ab)-(c|)")?.ticks == [[.value("a"), .value("b")], [], [.value("c"), .finish]])
    #expect(parse("(ab)-(c|)")?.description == "(ab)-(c|)")
  }

  @Test func spacesAreIgnored() {
    #expect(parse(" a - b | ") == parse("a-b|"))
  }

  @Test func whetherItEnds() {
    #expect(parse("a-|")?.isTerminated == true)
    #expect(parse("a-(b#)")?.isTerminated == true)
    #expect(parse("a-b")?.isTerminated == false)
  }

  @Test func everyMistakeIsNamedWithItsPosition() {
    #expect(problem("a-*")?.position == 3)
    #expect(problem("a-*")?.problem.hasPrefix("unknown marble character '*'") == true)
    #expect(
      problem("a|b")?.description
        == "marble diagram \"a|b\", character 3: nothing can follow the end ('|' or '#'), found 'b'")
    #expect(problem("a|-")?.position == 3)
    #expect(problem("(a-b)")?.problem == "'-' inside a group: a group is one tick")
    #expect(problem("((a))")?.problem == "a group cannot contain another group")
    #expect(problem("(ab")?.problem == "a group '(' that is never closed")
    #expect(problem("a)")?.problem == "')' without an opening '('")
    #expect(problem("a()")?.problem == "an empty group '()'")
    #expect(problem("(|a)")?.problem == "nothing can follow the end ('|' or '#') in a group")
    #expect(problem("é")?.position == 1)
  }

  // MARK: Reports

  @Test func theReportAlignsEveryDiagramTickByTickAndMarksTheFirstDifference() {
    let comparison = MarbleComparison<String>(
      expected: parse("-(ab)-c|")!,
      actual: [[], [.value("a")], [.value("b")], [.value("c")], [.finish]],
      inputs: ["a-b-c|", "--x|"], values: .letters, tick: .seconds(1))
    #expect(comparison.firstDifference == 1)
    #expect(
      comparison.mismatchReport(stoppedEarly: nil) == """
        Marble diagrams differ at tick 1 (1 s): expected 'a' then 'b', got 'a'.
          input 1:  a-   b-c|
          input 2:  --   x|
          expected: -(ab)-c|
          actual:   -a   bc|
                     ^
        """)
  }

  @Test func aValueNoCharacterStandsForIsDrawnAsAQuestionMark() {
    let comparison = MarbleComparison<Int>(
      expected: parse("a|")!, actual: [[.value(42)], [.finish]], inputs: ["a|"],
      values: MarbleValues(["a": 1]), tick: .seconds(1))
    let report = comparison.mismatchReport(stoppedEarly: nil)
    #expect(
      report?.hasPrefix("Marble diagrams differ at tick 0 (0 s): expected 'a', got the value 42.")
        == true)
    #expect(report?.contains("  actual:   ?|") == true)
    #expect(report?.hasSuffix("'?' is a value no marble character stands for: 42 at tick 0") == true)
  }

  @Test func matchingOutputHasNoReport() {
    let comparison = MarbleComparison<String>(
      expected: parse("a-(b|)")!, actual: [[.value("a")], [], [.value("b"), .finish]], inputs: [],
      values: .letters, tick: .seconds(1))
    #expect(comparison.mismatchReport(stoppedEarly: nil) == nil)
    #expect(comparison.actualDiagram == "a-(b|)")
  }

  @Test func ticksOfTheClock() {
    #expect(marbleTick(of: .milliseconds(30), tick: .milliseconds(10)) == 3)
    #expect(marbleTick(of: .milliseconds(35), tick: .milliseconds(10)) == 3)
    #expect(marbleTick(of: .zero, tick: .seconds(1)) == 0)
    #expect(marbleTick(of: .seconds(7), tick: .seconds(1)) == 7)
  }

  // MARK: Running

  @Test func anInputThatNeverEndsLeavesTheOutputOpen() async {
    #expect(await expectMarbles(from: "a-b", to: "a-b") { input, _ in input })
  }

  @Test func aFailureOfTheInputIsAFailureOfTheOutput() async {
    #expect(await expectMarbles(from: "a(b#)", to: "a(b#)") { input, _ in input })
  }

  @Test func aFailureIsAMarbleFailureNamingItsInputAndTick() async {
    let inputs = Locked<[String]>([])
    let caught = Locked<(any Error)?>(nil)
    // The output reads the second input, and turns its failure into the value x, then ends.
    let matched = await expectMarbles(from: ["a--|", "-b#"], to: "-b(x|)") { given, _ in
      inputs.withLock { $0 = given.map { "\($0.number) \($0.diagram) \($0)" } }
      let second = given.first { $0.number == 2 }
      return AsyncStream<String> { continuation in
        let reading = Task {
          do {
            if let second { for try await value in second { continuation.yield(value) } }
          } catch {
            caught.withLock { $0 = error }
            continuation.yield("x")
          }
          continuation.finish()
        }
        continuation.onTermination = { _ in reading.cancel() }
      }
    }
    #expect(matched)
    #expect(inputs.value == ["1 a--| input 1: a--|", "2 -b# input 2: -b#"])
    let failure = caught.value as? MarbleFailure
    #expect(failure == MarbleFailure(input: 2, tick: 2), "\(String(describing: caught.value))")
    #expect(failure?.input == 2 && failure?.tick == 2)
    #expect(failure?.description == "the failure (#) of input 2 at tick 2")
  }

  @Test func anOutputThatGoesOnAfterTheExpectedDiagramIsReported() async {
    let line: UInt = #line + 2
    let (matched, issues) = await collectingIssues {
      await expectMarbles(from: "a-b|", to: "a-") { input, _ in input }
    }
    #expect(!matched)
    #expect(issues.count == 1)
    #expect(
      issues.first?.message.hasPrefix(
        "Marble diagrams differ at tick 2 (2 s): expected nothing, got 'b'. The output goes on "
          + "after the expected diagram ends (it has 2 ticks): lengthen the expected diagram, or end it "
          + "with '|'.") == true)
    #expect(issues.first?.site.line == line)
  }

  @Test func anUnknownMarbleCharacterIsReportedAtTheCallersLineAndNothingRuns() async {
    let built = EventCounter("body")
    let line: UInt = #line + 2
    let (matched, issues) = await collectingIssues {
      await expectMarbles(from: "a-*|", to: "a--|") { input, _ in
        built.record()
        return input
      }
    }
    #expect(!matched)
    #expect(built.count == 0)
    #expect(
      issues.map(\.message) == [
        "expectMarbles: the input is not a marble diagram: marble diagram \"a-*|\", character 3: "
          + "unknown marble character '*'; use a letter or digit for a value, '-' for a tick with "
          + "nothing, '|' for the end, '#' for a failure, '(…)' for events of one tick and spaces to align"
      ])
    #expect(issues.first?.site.line == line)
  }

  @Test func aLetterWithNoValueIsReported() async {
    let (_, issues) = await collectingIssues {
      await expectMarbles(from: "a-b|", to: "a-z|", values: ["a": 1, "b": 2]) { input, _ in input }
    }
    #expect(
      issues.map(\.message) == [
        "expectMarbles: 'z' in the expected output, \"a-z|\", stands for no value; values has 'a', 'b'"
      ])
  }

  @Test func aTickOfZeroIsReported() async {
    let (_, issues) = await collectingIssues {
      await expectMarbles(from: "a|", to: "a|", tick: .zero) { input, _ in input }
    }
    #expect(
      issues.map { $0.message } == ["expectMarbles: the tick must be longer than zero, not 0 s"])
  }

  @Test func anOutputThatNeverStopsIsCutAtTheHorizon() async {
    let (matched, issues) = await collectingIssues {
      await expectMarbles(from: "a|", to: "a|") { _, clock in
        AsyncStream<String> { continuation in
          let ticking = Task {
            while true {
              continuation.yield("t")
              do { try await clock.sleep(for: .seconds(1)) } catch { return }
            }
          }
          continuation.onTermination = { _ in ticking.cancel() }
        }
      }
    }
    #expect(!matched)
    #expect(issues.count == 1)
    #expect(
      issues.first?.message.hasPrefix(
        "Marble diagrams differ at tick 0 (0 s): expected 'a', got 't'.") == true)
    #expect(
      issues.first?.message.hasSuffix(
        "The recording stopped at tick 1002, 1,000 ticks after the longest diagram, with the output "
          + "still going: compare a prefix of it.") == true)
  }

  @Test func insideADeterministicRunItUsesThatRun() async throws {
    let clocks = Locked<[TestClock]>([])
    try await withDeterministicScheduling(seed: 8) {
      let before = clocks.value.count
      await expectMarbles(from: "ab|", to: "ab|") { input, clock in
        clocks.withLock { $0.append(clock) }
        return input
      }
      #expect(clocks.value.count == before + 1)
    }
    #expect(clocks.value.first?.now == .zero.advanced(by: .seconds(2)))
  }
}
