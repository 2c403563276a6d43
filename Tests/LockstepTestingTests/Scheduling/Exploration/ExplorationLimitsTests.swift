import Lockstep
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// A task that yields forever: it never finishes, and it is never stuck.
@Sendable private func spinForever() async {
  let spinner = Task(name: "spinner") {
    while !Task.isCancelled { await Task.yield() }  // allowed: a job after job, forever
  }
  await spinner.value
}

/// Two tasks that each hop to the main actor `hops` times: many schedules, all passing.
@Sendable private func twoHoppingTasks(hops: Int) async {
  let first = Task(name: "first") { for _ in 0..<hops { await MainActor.run {} } }
  let second = Task(name: "second") { for _ in 0..<hops { await MainActor.run {} } }
  await first.value
  await second.value
}

/// The limits of one exploration: `maxSteps` (a livelock), `timeout` (real time) and the
/// `limit` of an exhaustive search.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationLimitsTests {
  @Test func aScheduleThatRunsMoreThanMaxStepsJobsFailsAsALivelock() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 0, limit: 1), maxSteps: 500, spinForever)
    }
    let failure = try #require(result.failure)
    #expect(issues.count == 1)
    #expect(failure.failures.count == 1)
    let message = failure.failures.first ?? ""
    #expect(message.contains("ran 500 jobs without finishing (maxSteps)"), "\(message)")
    #expect(message.contains("livelock"))
    // The report lists the tasks, and where each waits.
    #expect(message.contains("Tasks:\n  - task 1 (the body)"), "\(message)")
    #expect(message.contains("waits at") || message.contains("not shown"), "\(message)")
    #expect(failure.timeline.entries.last?.step == 500)
  }

  @Test func maxStepsCountsJobs() async {
    // The same body passes when its bound is above the jobs it needs, and fails below.
    let body: @Sendable () async -> Void = {
      for _ in 0..<100 { await Task.yield() }  // allowed: about a hundred jobs
    }
    let (roomy, warnings) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 0, limit: 1), maxSteps: 500, body)
    }
    #expect(roomy.failure == nil)
    // One task alone has no choice points: explore says there was nothing to explore.
    #expect(warnings.map(\.isWarning) == [true])
    let (tight, _) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 0, limit: 1), maxSteps: 50, body)
    }
    #expect(tight.failure?.failures.first?.contains("ran 50 jobs without finishing") == true)
  }

  @Test func aScheduleThatOutlastsTheRealTimeTimeoutFails() async throws {
    // The schedule never ends, and maxSteps cannot stop it: only the real-time bound can.
    let timeout = Duration.milliseconds(50)
    let (result, issues) = await collectingIssues {
      await explore(
        .exhaustive(maxPreemptions: 0, limit: 1), maxSteps: .max, timeout: timeout, spinForever)
    }
    let failure = try #require(result.failure)
    #expect(issues.count == 1)
    let message = failure.failures.first ?? ""
    // Under LOCKSTEP_TIMEOUT_SCALE the message gives the lengthened bound first, then this one.
    let bound = FailureBoundScale.scaled(timeout).lockstepText
    #expect(message.hasPrefix("Timed out after \(bound)"), "\(message)")
    #expect(message.contains(timeout.lockstepText))
    #expect(message.contains("waiting for the deterministic run's body to finish"))
    #expect(message.contains("quarantined"))
  }

  @Test func anExhaustiveSearchStopsAtItsLimitAndSaysSo() async {
    let all = await explore(.exhaustive(maxPreemptions: 2)) { await twoHoppingTasks(hops: 2) }
    #expect(all.isComplete && all.failure == nil)
    #expect(all.schedulesRun > 3)

    let limited = await explore(.exhaustive(maxPreemptions: 2, limit: 3)) {
      await twoHoppingTasks(hops: 2)
    }
    #expect(limited.schedulesRun == 3)
    #expect(!limited.isComplete)
    #expect(limited.failure == nil)
    #expect(limited.description.contains("stopped before the end"))

    let roomy = await explore(.exhaustive(maxPreemptions: 2, limit: all.schedulesRun)) {
      await twoHoppingTasks(hops: 2)
    }
    #expect(roomy.isComplete && roomy.schedulesRun == all.schedulesRun)
  }
}
