import Foundation
import LockstepReports
import LockstepTestSupport
import Testing

@testable import LockstepTesting

// Whenever explore or checkLinearizability records an issue, the result it returns carries it:
// a failure or a problem, a description that says so, a JSON summary that counts it as failed.

/// `meet` waits for a second caller: two tasks calling it at once both return, one call at a time
/// never does.
private actor Rendezvous {
  private var waiting: CheckedContinuation<Int, Never>?
  func meet() async -> Int {
    if let waiting {
      self.waiting = nil
      waiting.resume(returning: 1)
      return 2
    }
    return await withCheckedContinuation { waiting = $0 }
  }
}

private actor Counter {
  private var count = 0
  func increment() -> Int {
    count += 1
    return count
  }
}

private let oneScenario = ConcurrentScenarios.random(
  1, tasks: 2...2, callsPerTask: 1...1, callsBefore: 0...0, callsAfter: 0...0)

/// Checks that `result` carries the one issue recorded, in its problem and its description.
private func expectCarried(
  _ problem: String?, description: String, passed: Bool, _ issues: [ReportedIssue],
  containing text: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  let errors = issues.filter { !$0.isWarning }
  #expect(errors.count == 1, "\(issues)", sourceLocation: sourceLocation)
  #expect(!passed, sourceLocation: sourceLocation)
  #expect(problem == errors.first?.message, sourceLocation: sourceLocation)
  #expect(problem?.contains(text) == true, "\(problem ?? "nil")", sourceLocation: sourceLocation)
  #expect(description.contains(text), "\(description)", sourceLocation: sourceLocation)
  #expect(
    !description.contains("every result explained") && !description.contains("no failure"),
    "\(description)", sourceLocation: sourceLocation)
}

/// Checks that an `explore` and a `checkLinearizability` that both stopped short carry their own
/// issue, each `containing` its text.
private func expectBothCarried(
  _ results: (ExplorationResult, LinearizabilityResult), _ issues: [ReportedIssue],
  containing texts: (String, String), sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(issues.count == 2, "\(issues)", sourceLocation: sourceLocation)
  expectCarried(
    results.0.problem, description: results.0.description, passed: results.0.passed,
    issues.filter { $0.message.hasPrefix("explore") }, containing: texts.0, sourceLocation: sourceLocation)
  expectCarried(
    results.1.problem, description: results.1.description, passed: results.1.passed,
    issues.filter { $0.message.hasPrefix("checkLinearizability") }, containing: texts.1,
    sourceLocation: sourceLocation)
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ResultsCarryTheirIssuesTests {
  @Test func aCheckOfAnObjectNotDeterministicAloneFails() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        scenarios: oneScenario, of: { Drifting() }, operations: [.call("read") { $0.read() }])
    }
    expectCarried(
      result.problem, description: result.description, passed: result.passed, issues,
      containing: "gave two results for the same calls")
    #expect(result.failure == nil)
  }

  @Test func aCheckWhoseOperationsCannotReturnAloneFails() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        scenarios: oneScenario, of: { Rendezvous() }, operations: [.call("meet") { await $0.meet() }])
    }
    expectCarried(
      result.problem, description: result.description, passed: result.passed, issues,
      containing: "did not finish")
  }

  @Test func whereSchedulingIsUnavailableNothingRunsAndBothResultsSaySo() async {
    let (results, issues) = await collectingIssues {
      await RuntimeHooks.$simulatedUnavailability.withValue("a platform without it") {
        (
          await explore(.random(schedules: 3)) {},
          await checkLinearizability(
            scenarios: oneScenario, of: { Counter() },
            operations: [.call("increment") { await $0.increment() }])
        )
      }
    }
    expectBothCarried(results, issues, containing: ("a platform without it", "a platform without it"))
    #expect(results.0.schedulesRun == 0 && results.1.scenariosRun == 0)
  }

  @Test func insideAnotherRunNothingRunsAndBothResultsSaySo() async throws {
    let (results, issues) = try await collectingIssues {
      try await withDeterministicScheduling {
        (
          await explore(.random(schedules: 3)) {},
          await checkLinearizability(
            scenarios: oneScenario, of: { Counter() },
            operations: [.call("increment") { await $0.increment() }])
        )
      }
    }
    let nested = "cannot run inside another deterministic run"
    expectBothCarried(results, issues, containing: (nested, nested))
  }

  @Test func badArgumentsRunNothingAndTheResultsSaySo() async {
    let (results, issues) = await collectingIssues {
      (
        await explore(.random(schedules: 0)) {},
        await checkLinearizability(of: { Counter() }, operations: [])
      )
    }
    expectBothCarried(results, issues, containing: ("Nothing ran", "give at least one operation"))
  }

  @Test func aReplayThatLeavesItsScheduleAndAStalePinnedTokenFail() async {
    let token = "L2.AQAIAkRVAgAA-vMU9srOaw"
    let (results, issues) = await collectingIssues {
      (
        await explore(.replay(token)) { try await twoWriters() },
        await explore(.random(schedules: 2), pinned: [token]) { try await twoWriters() }
      )
    }
    #expect(issues.count == 2, "\(issues)")
    expectCarried(
      results.0.problem, description: results.0.description, passed: results.0.passed,
      issues.filter { $0.message.contains("did not follow its token's schedule") },
      containing: "did not follow its token's schedule")
    expectCarried(
      results.1.problem, description: results.1.description, passed: results.1.passed,
      issues.filter { $0.message.contains("is stale") }, containing: token)
  }

  @Test func aTimeBudgetStopsACheckShortWithoutAnIssueAndItsResultSaysSo() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .random(schedules: 10).forAtMost(.nanoseconds(1)), scenarios: .random(5),
        of: { Counter() }, operations: [.call("increment") { await $0.increment() }])
    }
    #expect(issues.filter { !$0.isWarning }.isEmpty, "\(issues)")
    #expect(result.passed && result.problem == nil && result.ranOutOfTime)
    #expect(result.description.contains("stopped by its time budget"), "\(result)")
  }

  @Test func theJSONSummaryOfACheckThatStoppedShortCountsAsFailed() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("lockstep-problem-tests-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (result, _) = await collectingIssues {
      await TimelinePictureReport.$folderOverride.withValue(.init(path: folder)) {
        await checkLinearizability(
          scenarios: oneScenario, of: { Drifting() }, operations: [.call("read") { $0.read() }])
      }
    }
    let (files, _) = SummaryFiles.find(in: [folder])
    let (summaries, unreadable) = SummaryFiles.read(files)
    #expect(unreadable.isEmpty && summaries.count == 1, "\(files)")
    #expect(summaries.first?.problem == result.problem && result.problem != nil)
    let verdict = MatrixVerdict(summaries)
    #expect(!verdict.passed)
    #expect(verdict.table.contains("FAILED: 1 problem(s)"), "\(verdict.table)")
    #expect(verdict.table.contains("gave two results for the same calls"), "\(verdict.table)")
  }
}

/// Two tasks write; the body passes whatever the order.
@Sendable private func twoWriters() async throws {
  let log = WriteLog()
  await withTaskGroup(of: Void.self) { group in
    for writer in 0..<2 {
      group.addTask { await log.add(writer) }
    }
  }
}

private actor WriteLog {
  var entries: [Int] = []
  func add(_ entry: Int) { entries.append(entry) }
}
