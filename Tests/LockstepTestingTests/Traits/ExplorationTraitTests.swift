import Foundation
import LockstepTestSupport
import LockstepTesting
import Testing

// The `.exploring` trait, applied by Swift Testing and called directly. What a test under the
// trait cannot check of itself (how many schedules ran, that it failed) is checked by a trait of
// this file written before it, whose scope encloses the exploration.

/// Two tasks that finish in either order: a correct body with choice points to explore.
private func twoTasks() async {
  let finished = EventCounter("finished tasks")
  let first = Task(name: "first") {
    await Task.yield()  // allowed: a choice point for the explored schedules
    finished.record()
  }
  let second = Task(name: "second") {
    await Task.yield()  // allowed: a choice point for the explored schedules
    finished.record()
  }
  await first.value
  await second.value
  #expect(finished.count == 2)
}

private func racyIncrement(_ counter: SharedCounter) async {
  let read = counter.value
  await MainActor.run {}  // a hop, where another task may run
  counter.value = read + 1
}

/// The invariant that some schedules break: two concurrent increments make 2.
@Sendable private func bothIncrementsCount() async throws {
  let counter = SharedCounter()
  let first = Task(name: "increment 1") { await racyIncrement(counter) }
  let second = Task(name: "increment 2") { await racyIncrement(counter) }
  await first.value
  await second.value
  guard counter.value == 2 else { throw LostUpdate(value: counter.value) }
}

/// Runs `body` the way Swift Testing runs a test case that carries `trait`.
private func runAsATest(
  with trait: ExplorationTrait, _ body: @escaping @Sendable () async throws -> Void
) async throws {
  let test = try #require(Test.current)
  try await trait.provideScope(for: test, testCase: Test.Case.current, performing: body)
}

// MARK: - Traits that check the exploration from outside it

/// What the schedules of one test case record, for the trait that encloses them.
private enum ScheduleLog {
  @TaskLocal static var current: EventRecorder<Int>?

  /// Records one schedule of the test case, which saw `value`.
  static func record(_ value: Int = 0) {
    #expect(current != nil, "not under .countingSchedules")
    current?.record(value)
  }
}

/// Expects each test case to run `expected` schedules, all of which saw the same value.
private struct CountingSchedulesTrait: TestTrait, SuiteTrait, TestScoping {
  let expected: Int
  var isRecursive: Bool { true }

  func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let log = EventRecorder<Int>("schedules")
    try await ScheduleLog.$current.withValue(log) { try await function() }
    #expect(log.values.count == expected)
    #expect(Set(log.values).count == 1, "one case's schedules saw \(Set(log.values))")
  }
}

/// Expects each test case to report exactly one Lockstep issue, containing `text`, and collects
/// it so that it does not fail the test.
private struct ExpectingOneIssueTrait: TestTrait, SuiteTrait, TestScoping {
  let text: String
  var isRecursive: Bool { true }

  func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let (_, issues) = try await collectingIssues { try await function() }
    expectIssues(issues, containing: [text])
  }
}

extension Trait where Self == CountingSchedulesTrait {
  fileprivate static func countingSchedules(_ expected: Int) -> Self { Self(expected: expected) }
}

extension Trait where Self == ExpectingOneIssueTrait {
  fileprivate static func expectingOneIssue(containing text: String) -> Self { Self(text: text) }
}

// MARK: - Tests

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationTraitTests {
  @Test(.countingSchedules(20), .exploring(.random(schedules: 20, seed: 1)))
  func aCorrectTestPassesAfterEverySchedule() async {
    ScheduleLog.record()
    await twoTasks()
  }

  @Test(.countingSchedules(20), .exploring(.random(schedules: 20, seed: 1)), arguments: [1, 2, 3])
  func eachCaseOfAParameterizedTestIsExploredOnItsOwn(argument: Int) async {
    ScheduleLog.record(argument)
    await twoTasks()
  }

  @Test(.countingSchedules(5), .exploring(.random(schedules: 5, seed: 1)))
  @MainActor func aMainActorTestIsExploredOnTheMainActor() async {
    MainActor.assertIsolated()
    ScheduleLog.record()
    await twoTasks()
  }

  @Test(.expectingOneIssue(containing: "two increments made 1"), .exploring(.random(schedules: 200, seed: 1)))
  func aRacyTestFailsWithTheReportOfTheFailingSchedule() async throws {
    try await bothIncrementsCount()
  }

  @Test func underTheTraitAsCalledDirectlyEveryScheduleRunsAndNothingIsReported() async throws {
    let schedules = EventCounter("schedules")
    let (_, issues) = try await collectingIssues {
      try await runAsATest(with: .exploring(.random(schedules: 20, seed: 1))) {
        schedules.record()
        await twoTasks()
      }
    }
    #expect(schedules.count == 20)
    expectIssues(issues, containing: [])
  }

  @Test func theReportIsExploresReportAtTheTrait() async throws {
    let (trait, line): (ExplorationTrait, UInt) = (.exploring(.random(schedules: 200, seed: 1)), #line)
    let (_, issues) = try await collectingIssues {
      try await runAsATest(with: trait, bothIncrementsCount)
    }
    let (direct, directIssues) = await collectingIssues {
      await explore(.random(schedules: 200, seed: 1), bothIncrementsCount)
    }
    let issue = try #require(expectOneIssue(issues, containing: "two increments made 1"))
    #expect(issue.site.line == line)
    #expect("\(issue.site.fileID)".hasSuffix("ExplorationTraitTests.swift"))
    // The same schedule, report and token as explore's (but for the picture's last line, which
    // names where the report was made).
    let token = try #require(direct.failure?.token)
    #expect(issue.message.contains(".replay(\"\(token)\")"))
    let firstLines = { (message: String) in message.split(separator: "\n").dropLast() }
    #expect(firstLines(issue.message) == firstLines(directIssues.first?.message ?? ""))
  }

  @Test func aPinnedTokenIsReplayedFirst() async throws {
    let (found, _) = await collectingIssues {
      await explore(.random(schedules: 200, seed: 1), bothIncrementsCount)
    }
    let token = try #require(found.failure?.token.description)
    // The one unguided schedule keeps both updates: the pinned token's schedule is what fails.
    let (_, issues) = try await collectingIssues {
      try await runAsATest(
        with: .exploring(.exhaustive(maxPreemptions: 0, limit: 1), pinned: [token]),
        bothIncrementsCount)
    }
    expectIssues(issues, containing: ["the pinned token \"\(token)\" fails again"])
  }

  @Test func aParameterThatCannotWorkIsReportedAtTheTraitAndNothingRuns() async throws {
    let (_, issues) = try await collectingIssues {
      try await runAsATest(with: .exploring(.random(schedules: 20), maxSteps: 0)) {
        Issue.record("the body ran")
      }
    }
    expectIssues(issues, containing: ["maxSteps: 0 must be at least 1"])
  }

  @Test(
    .expectingOneIssue(containing: "cannot be combined with .deterministic"),
    .exploring(.random(schedules: 5, seed: 1)), .deterministic())
  func underDeterministicInsideItNothingRuns() async {
    Issue.record("the body ran")
  }

  @Test(
    .expectingOneIssue(containing: "cannot be combined with .deterministic"),
    .deterministic(), .exploring(.random(schedules: 5, seed: 1)))
  func underDeterministicAroundItNothingRuns() async {
    Issue.record("the body ran")
  }
}

/// A suite's `.exploring` explores each of its tests, each case on its own; each schedule runs on
/// an instance of the suite of its own, as it runs the whole test function.
@Suite(
  .timeLimit(.minutes(SuiteTimeLimit.minutes)), .countingSchedules(3),
  .exploring(.random(schedules: 3, seed: 1)))
final class ExploredSuiteTests {
  private var runs = 0

  @Test func aTestOfTheSuiteIsExplored() async {
    runs += 1
    #expect(runs == 1)
    ScheduleLog.record()
    await twoTasks()
  }

  @Test(arguments: [1, 2])
  func aParameterizedTestOfTheSuiteIsExploredCaseByCase(argument: Int) async {
    runs += 1
    #expect(runs == 1)
    ScheduleLog.record(argument)
    await twoTasks()
  }
}

/// A test's `.exploring` inside a suite's: reported, and nothing runs.
@Suite(
  .timeLimit(.minutes(SuiteTimeLimit.minutes)), .expectingOneIssue(containing: "is applied 2 times"),
  .exploring(.random(schedules: 3, seed: 1)))
struct TwiceExploredTests {
  @Test(.exploring(.random(schedules: 3, seed: 2)))
  func aTestExploredTwiceDoesNotRun() async {
    Issue.record("the body ran")
  }
}
