import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// Scenario 9's diagrams, shared by both frameworks: each is run on the correct and the broken
/// operator, plainly and under exploration.
private enum Diagrams {
  /// A debounce of three ticks: `a` is replaced by `b` before its quiet period ends; `b` comes
  /// out three ticks after it; `c` is still waiting when the input ends, so it comes out then.
  @discardableResult static func debounce(_ variant: Variant) async -> Bool {
    await expectMarbles(from: "a-b----c-|", to: "-----b---(c|)") { input, clock in
      input.debounced(for: .seconds(3), clock: clock, variant: variant)
    }
  }

  /// A throttle of two ticks over one value a tick: every other value gets through.
  @discardableResult static func throttle(_ variant: Variant) async -> Bool {
    await expectMarbles(from: "abcdef|", to: "a-c-e-|") { input, clock in
      input.throttled(for: .seconds(2), clock: clock, variant: variant)
    }
  }

  /// Two inputs interleaved; the merge ends when the second, longer one ends.
  @discardableResult static func merge(_ variant: Variant) async -> Bool {
    await expectMarbles(from: ["a-c-e|", "-b-d---f|"], to: "abcde--f|") { inputs, _ in
      inputs[0].merged(with: inputs[1], variant: variant)
    }
  }

  /// What each broken operator's report says first.
  static let debounceCaught = "Marble diagrams differ at tick 3 (3 s): expected nothing, got 'b'."
  static let throttleCaught = "Marble diagrams differ at tick 2 (2 s): expected 'c', got nothing."
  static let mergeCaught = "Marble diagrams differ at tick 5 (5 s): expected nothing, got the end."
}

/// Expects nothing reported for the correct operator, and for the broken one exactly the
/// exploration's report of a failing schedule, naming what its diagram test said.
private func expectReport(
  _ issues: [ReportedIssue], of variant: Variant, mentioning caught: String,
  filePath: StaticString = #filePath, line: UInt = #line
) {
  if variant == .correct {
    #expect(issues.isEmpty, "\(issues)")
  } else {
    expectOneIssue(issues, containing: "found a failing schedule", caught, filePath: filePath, line: line)
  }
}

private struct Disconnected: Error {}

/// Scenario 9: a merge whose input fails ends with that failure — which a test that never looks
/// at it is told about at the end of the test, at the line that created the recorder.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct MergeFailureTests {
  @Test func aMergeFailureTheTestNeverCheckedIsReportedAtTeardown() async throws {
    let line: UInt = #line + 7
    let (_, issues) = try await collectingIssues {
      try await TeardownVerificationTrait.verifyingTeardown.provideScope(
        for: try #require(Test.current), testCase: Test.Case.current
      ) {
        let (taps, tap) = AsyncThrowingStream.makeStream(of: String.self)
        let (keys, key) = AsyncThrowingStream.makeStream(of: String.self)
        let events = SequenceRecorder(taps.merged(with: keys), name: "events")
        tap.yield("tap")
        #expect(try await events.next() == "tap")
        key.finish(throwing: Disconnected())
        tap.finish()
        try await events.waitForCount(2)  // returns at the end, without checking it
      }
    }
    let issue = expectOneIssue(
      issues, containing: "\"events\" failed with ", "Disconnected()", "the test never checked it",
      "expectFailure()")
    #expect(issue?.site.line == line)
  }

  @Test func aMergeFailureTheTestAwaitedIsNotReported() async throws {
    let (_, issues) = try await collectingIssues {
      try await TeardownVerificationTrait.verifyingTeardown.provideScope(
        for: try #require(Test.current), testCase: Test.Case.current
      ) {
        let (taps, tap) = AsyncThrowingStream.makeStream(of: String.self)
        let (keys, key) = AsyncThrowingStream.makeStream(of: String.self)
        let events = SequenceRecorder(taps.merged(with: keys), name: "events")
        key.finish(throwing: Disconnected())
        tap.finish()
        let error = try await events.expectFailure()
        #expect(error is Disconnected)
      }
    }
    #expect(issues.isEmpty, "\(issues)")
  }
}

/// Scenario 9: time-based operators as diagrams.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct MarbleOperatorTests {
  @Test(arguments: Variant.allCases)
  func debounce(variant: Variant) async {
    // The broken debounce lets its first timer emit.
    let (_, issues) = await collectingIssues { await Diagrams.debounce(variant) }
    expectIssues(issues, containing: variant == .correct ? [] : [Diagrams.debounceCaught])
    if variant == .broken {
      #expect(
        issues.first?.message.contains(
          "  expected: -----b---(c|)\n  actual:   ---b-----(c|)\n               ^") == true,
        "\(issues)")
    }
  }

  @Test(arguments: Variant.allCases)
  func throttle(variant: Variant) async {
    // The broken throttle restarts its interval with every value.
    let (_, issues) = await collectingIssues { await Diagrams.throttle(variant) }
    expectIssues(issues, containing: variant == .correct ? [] : [Diagrams.throttleCaught])
    if variant == .broken {
      #expect(issues.first?.message.contains("  actual:   a-----|") == true, "\(issues)")
    }
  }

  @Test(arguments: Variant.allCases)
  func merge(variant: Variant) async {
    // The broken merge ends with its first input.
    let (_, issues) = await collectingIssues { await Diagrams.merge(variant) }
    expectIssues(issues, containing: variant == .correct ? [] : [Diagrams.mergeCaught])
    if variant == .broken {
      #expect(issues.first?.message.contains("  actual:   abcde|") == true, "\(issues)")
    }
  }

  /// The same diagram tests under exploration: the correct operators pass every explored
  /// schedule of their tasks, and each broken one fails the first schedule it runs.
  @Test(arguments: Variant.allCases)
  func debounceUnderExploration(variant: Variant) async {
    // Every schedule with at most one preemption: 668 of them for the correct debounce.
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1)) { await Diagrams.debounce(variant) }
    }
    #expect(result.failure?.schedule == (variant == .broken ? 1 : nil))
    if variant == .correct { #expect(result.isComplete && result.schedulesRun > 100, "\(result)") }
    expectReport(issues, of: variant, mentioning: Diagrams.debounceCaught)
  }

  @Test(arguments: Variant.allCases)
  func throttleUnderExploration(variant: Variant) async {
    let (result, issues) = await collectingIssues {
      await explore(.pct(schedules: 100, depth: 2, seed: 2)) { await Diagrams.throttle(variant) }
    }
    #expect((result.failure != nil) == (variant == .broken))
    expectReport(issues, of: variant, mentioning: Diagrams.throttleCaught)
  }

  @Test(arguments: Variant.allCases)
  func mergeUnderExhaustiveExploration(variant: Variant) async {
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1)) { await Diagrams.merge(variant) }
    }
    if variant == .correct { #expect(result.isComplete, "\(result)") }
    #expect((result.failure != nil) == (variant == .broken))
    expectReport(issues, of: variant, mentioning: Diagrams.mergeCaught)
  }

  @Test func valuesOtherThanLetters() async {
    await expectMarbles(
      from: "123|", to: "1-3|", values: ["1": 10, "2": 20, "3": 30]
    ) { input, clock in
      input.throttled(for: .seconds(2), clock: clock)
    }
  }

  @Test func aFailureOfTheInputEndsTheDebounceAndDropsTheWaitingValue() async {
    await expectMarbles(from: "a-#", to: "--#") { input, clock in
      input.debounced(for: .seconds(3), clock: clock)
    }
  }

  @Test func millisecondTicks() async {
    await expectMarbles(from: "a-b----c-|", to: "-----b---(c|)", tick: .milliseconds(10)) { input, clock in
      input.debounced(for: .milliseconds(30), clock: clock)
    }
  }

  @Test(.deterministic(seed: 77)) func insideTheDeterministicTrait() async {
    await Diagrams.merge(.correct)
  }
}

final class MarbleOperatorXCTests: XCTestCase {
  func testTheCorrectOperatorsMatchTheirDiagrams() async {
    let debounced = await Diagrams.debounce(.correct)
    let throttled = await Diagrams.throttle(.correct)
    let merged = await Diagrams.merge(.correct)
    XCTAssertTrue(debounced && throttled && merged)
  }

  func testEveryBrokenOperatorIsCaughtWithBothDiagrams() async {
    for (check, caught) in [
      (Diagrams.debounce, Diagrams.debounceCaught), (Diagrams.throttle, Diagrams.throttleCaught),
      (Diagrams.merge, Diagrams.mergeCaught),
    ] {
      let (matched, issues) = await collectingIssues { await check(.broken) }
      XCTAssertFalse(matched)
      XCTAssertEqual(issues.count, 1)
      XCTAssertTrue(issues.first?.message.hasPrefix(caught) == true, issues.first?.message ?? "")
      XCTAssertTrue(issues.first?.message.contains("  expected: ") == true)
      XCTAssertTrue(issues.first?.message.contains("  actual:   ") == true)
    }
  }

  func testTheBrokenDebounceIsFoundUnderExploration() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 50, seed: 9)) { await Diagrams.debounce(.broken) }
    }
    let failure = try XCTUnwrap(result.failure)
    XCTAssertEqual(failure.schedule, 1)
    expectOneIssue(issues, containing: Diagrams.debounceCaught)
  }

  func testTheCorrectMergePassesEveryScheduleWithOnePreemption() async {
    let result = await explore(.exhaustive(maxPreemptions: 1)) { await Diagrams.merge(.correct) }
    XCTAssertNil(result.failure)
    XCTAssertTrue(result.isComplete, "\(result)")
  }
}
