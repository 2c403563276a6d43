import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The token of a crash report that recorded no choice point: what a crash writes when no two
/// jobs were ever ready at once before it.
private let noChoicesCrashToken = ReplayToken(
  choices: [], cancelAtWait: nil, check: ScheduleCheck(readyCounts: [], chosenTasks: [], whole: nil)
).description

/// One task that yields `times` times: a step each, and never two jobs ready at once.
private func yields(_ times: Int) async {
  for _ in 0..<times { await Task.yield() }
}

/// `.replayUpToCrash` replays a crash report's schedule and stops before the step that crashed:
/// the process survives, and the report is the timeline up to the crash, said as such. (The crash
/// report itself, in a child process that crashes: ``CrashReportTests``.)
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ReplayUpToCrashTests {
  @Test func itStopsBeforeTheStepThatCrashedAndSaysSo() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.replayUpToCrash(noChoicesCrashToken, atStep: 4)) { await yields(10) }
    }
    #expect(result.stoppedBeforeCrashingStep == 4, "\(result)")
    #expect(result.divergence == nil, "\(result)")
    let failure = try #require(result.failure, "\(result)")
    #expect(failure.timeline.entries.map(\.step) == [1, 2, 3], "\(failure.timeline)")
    #expect(issues.count == 1, "\(issues.map(\.message))")
    let text = "\(result)"
    #expect(issues.first?.message.hasPrefix(text) == true, "the issue holds the report: \(text)")
    #expect(
      text.hasPrefix(
        "explore replayUpToCrash(\"\(noChoicesCrashToken)\", atStep: 4) stopped before step 4, the "
          + "step that crashed the process in the recorded run"), "\(text)")
    #expect(text.contains("Timeline of the schedule up to the crash:\n"), "\(text)")
    for mislabel in ["livelock", "did not follow", "maxSteps"] {
      #expect(!text.contains(mislabel), "\(text)")
    }
  }

  @Test func aRunThatFinishesBeforeThatStepSaysTheCrashDidNotComeBack() async {
    let (result, issues) = await collectingIssues {
      await explore(.replayUpToCrash(noChoicesCrashToken, atStep: 100)) { await yields(3) }
    }
    #expect(result.stoppedBeforeCrashingStep == nil)
    #expect(result.failure == nil)
    #expect(!result.passed)
    let problem = result.problem ?? ""
    #expect(problem.contains(" finished after "), "\(problem)")
    #expect(problem.contains(" step(s), before step 100, the step that crashed"), "\(problem)")
    #expect(problem.contains("the crash did not come back"), "\(problem)")
    #expect(issues.map(\.message) == [problem])
  }

  @Test func itTakesOnlyACrashReportsTokenAndAStepFromOne() async {
    let whole = ReplayToken(
      choices: [], cancelAtWait: nil,
      check: ScheduleCheck(readyCounts: [], chosenTasks: [], whole: .init(steps: 4, checksum: 0))
    ).description
    for (strategy, problem) in [
      (ExplorationStrategy.replayUpToCrash(whole, atStep: 2), "is the token of a whole schedule"),
      (.replayUpToCrash(noChoicesCrashToken, atStep: 0), "atStep: 0 must be at least 1"),
    ] {
      var ran = false
      let (result, issues) = await collectingIssues {
        await explore(strategy) { ran = true }
      }
      #expect(!ran)
      #expect(result.problem?.contains(problem) == true, "\(result)")
      #expect(issues.count == 1)
    }
  }
}
