import Foundation
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

// What an exploration says about itself: how much it really explored, whether the schedule it
// reports reproduces, and misuse reported at the caller's line instead of being corrected.

private actor Counter {
  var value = 0
  func increment() { value += 1 }
}

/// An await on an idle actor switches inline: no two jobs are ever ready at once.
@Sendable private func incrementOnce() async {
  let counter = Counter()
  await counter.increment()
  let value = await counter.value
  #expect(value == 1)
}

/// Two tasks that each yield once: a few distinct schedules.
@Sendable private func twoYieldingTasks() async {
  let first = Task { await Task.yield() }  // allowed: choice points for the explored schedules
  let second = Task { await Task.yield() }
  await first.value
  await second.value
}

/// Strategies with a parameter that cannot work, and the parameter as the report names it.
private let badStrategies: [(ExplorationStrategy, String)] = [
  (.random(schedules: 0), "schedules: 0"), (.pct(schedules: 0), "schedules: 0"),
  (.pct(depth: 0), "depth: 0"), (.exhaustive(maxPreemptions: -1), "maxPreemptions: -1"),
  (.exhaustive(limit: 0), "limit: 0"),
]

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationCoverageTests {
  // MARK: What was explored

  @Test func aBodyWithoutChoicePointsSaysThereWasNothingToExplore() async {
    let line = #line + 2
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 300, seed: 1), incrementOnce)
    }
    #expect(result.failure == nil)
    #expect(result.schedulesRun == 300)
    #expect(result.distinctSchedules == 1)
    #expect(result.mostChoicePoints == 0)
    #expect(result.description.contains("nothing to explore"), "\(result)")
    #expect(result.description.contains("not a choice point"), "\(result)")
    // Said once, as a warning at the explore call: it does not fail the test.
    #expect(issues.count == 1)
    #expect(issues.first?.isWarning == true)
    #expect(issues.first?.site.line == UInt(line))
    #expect(issues.first?.message.contains("nothing to explore") == true)
  }

  @Test func theResultCountsDistinctSchedulesAndChoicePoints() async {
    let random = await explore(.random(schedules: 200, seed: 1), twoYieldingTasks)
    #expect(random.schedulesRun == 200)
    #expect(random.mostChoicePoints > 0)
    let exhaustive = await explore(.exhaustive(maxPreemptions: 2), twoYieldingTasks)
    #expect(exhaustive.isComplete)
    #expect(exhaustive.distinctSchedules == exhaustive.schedulesRun)
    #expect(random.distinctSchedules > 1 && random.distinctSchedules <= exhaustive.distinctSchedules)
    #expect(random.description.contains("\(random.distinctSchedules) distinct"), "\(random)")
    #expect(!random.description.contains("nothing to explore"))
  }

  // MARK: Bad parameters

  @Test(arguments: badStrategies)
  func aBadParameterIsReportedAtTheCallAndNothingRuns(_ strategy: ExplorationStrategy, _ parameter: String)
    async
  {
    let ran = EventCounter("schedules run")
    let line = #line + 1
    let (result, issues) = await collectingIssues { await explore(strategy) { ran.record() } }
    #expect(ran.count == 0)
    #expect(result.schedulesRun == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.site.line == UInt(line))
    #expect(issues.first?.message.contains("\(parameter) must be") == true, "\(issues.first?.message ?? "")")
  }

  // MARK: The reported schedule is replayed once before the report

  @Test func aReportSaysThatItsScheduleReproduced() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 100, seed: 1)) {
        try await subscribersReceiveInOrder(reversed: false)
      }
    }
    let failure = try #require(result.failure)
    #expect(failure.reproduced)
    #expect(failure.divergence == nil)
    #expect(
      issues.first?.message.contains("Replayed once before this report: it failed the same way") == true)
  }

  @Test func aReportSaysWhenItsScheduleDidNotReproduce() async throws {
    // Fails only the first time it runs: the replay before the report passes.
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 10, seed: 1)) {
        runs.record()
        if runs.count == 1 { throw OutOfOrder(ids: [2, 1]) }
      }
    }
    let failure = try #require(result.failure)
    #expect(!failure.reproduced)
    #expect(failure.divergence == nil, "it followed the schedule, and passed")
    let report = issues.first?.message ?? ""
    #expect(report.contains("did not reproduce"), "\(report)")
    #expect(report.contains("passed"), "\(report)")
  }

  @Test func aReportSaysWhenItsReplayDiverged() async throws {
    // The broadcast resumes in ascending order on odd runs and in descending order on even ones.
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 100, seed: 1)) {
        runs.record()
        try await subscribersReceiveInOrder(reversed: runs.count % 2 == 0)
      }
    }
    let failure = try #require(result.failure)
    #expect(!failure.reproduced)
    let divergence = try #require(failure.divergence)
    let report = issues.first?.message ?? ""
    #expect(report.contains("did not reproduce"), "\(report)")
    #expect(report.contains("\(divergence)"), "\(report)")
  }

  // MARK: Runs inside runs

  @Test func aRunInsideARunThrowsItsOwnError() async throws {
    let error = await #expect(throws: NestedDeterministicRun.self) {
      try await withDeterministicScheduling {
        try await withDeterministicScheduling {}
      }
    }
    #expect(error?.description.contains("inside another deterministic run") == true)
    #expect(error?.description.contains("unavailable") == false)
  }

  @Test(.deterministic()) func exploreInsideARunIsReportedAtItsCall() async {
    let ran = EventCounter("schedules run")
    let line = #line + 1
    let (result, issues) = await collectingIssues { await explore(.random(schedules: 5)) { ran.record() } }
    #expect(ran.count == 0 && result.schedulesRun == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.site.line == UInt(line))
    #expect(issues.first?.message.contains("inside another deterministic run") == true)
    #expect(issues.first?.message.contains("unavailable") == false)
  }

  // MARK: The default seed

  @Test func theDefaultSeedIsFixedAndTheSameInEveryProcess() async throws {
    let expected = ProcessInfo.processInfo.environment["LOCKSTEP_SEED"].flatMap { UInt64($0) } ?? 1
    #expect(Interleavings.sessionSeed == expected)
    #expect(ExplorationStrategy.random().description == "random(schedules: 1000, seed: \(expected))")
    #expect(ExplorationStrategy.pct().description == "pct(schedules: 1000, depth: 3, seed: \(expected))")
    let child = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      print("default seed \(Interleavings.sessionSeed);")
    }
    let output = String(decoding: child?.standardOutputContent ?? [], as: UTF8.self)
    #expect(output.contains("default seed \(expected);"), "\(output)")
  }
}

final class ExplorationCoverageXCTests: XCTestCase {
  func testABodyWithoutChoicePointsSaysThereWasNothingToExplore() async {
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 2)) {
        let counter = Counter()
        await counter.increment()
      }
    }
    XCTAssertEqual(result.mostChoicePoints, 0)
    XCTAssertTrue(result.description.contains("nothing to explore"), "\(result)")
    XCTAssertEqual(issues.map(\.isWarning), [true])
  }

  func testABadParameterIsReportedAtTheCallAndNothingRuns() async {
    let ran = EventCounter("schedules run")
    let line = #line + 1
    let (result, issues) = await collectingIssues { await explore(.random(schedules: 0)) { ran.record() } }
    XCTAssertEqual(ran.count, 0)
    XCTAssertEqual(result.schedulesRun, 0)
    XCTAssertEqual(issues.map(\.site.line), [UInt(line)])
    XCTAssertTrue(issues.first?.message.contains("schedules: 0 must be at least 1") == true)
  }

  func testExploreInsideARunIsReportedAtItsCall() async throws {
    let line = LineBox<UInt>(0)
    let (_, issues) = try await withDeterministicScheduling {
      line.set(#line + 1)
      return await collectingIssues { await explore(.random(schedules: 5)) {} }
    }
    XCTAssertEqual(issues.map(\.site.line), [line.value])
    XCTAssertTrue(issues.first?.message.contains("inside another deterministic run") == true)
  }

  func testAReportSaysThatItsScheduleReproduced() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 100, seed: 1)) {
        try await subscribersReceiveInOrder(reversed: false)
      }
    }
    XCTAssertEqual(result.failure?.reproduced, true)
    XCTAssertTrue(
      issues.first?.message.contains("Replayed once before this report: it failed the same way") == true)
  }
}

/// A value for an XCTest to hand out of a `@Sendable` closure.
private final class LineBox<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  var value: Value { lock.withLock { stored } }
  func set(_ value: Value) { lock.withLock { stored = value } }
}
