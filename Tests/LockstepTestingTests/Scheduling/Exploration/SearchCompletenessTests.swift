import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// A body that takes another path for the same choices: its broadcast resumes subscribers in an
/// order that changes from run to run (seeded by the run's number), as a dictionary's order does
/// when hashing is not deterministic.
private func unstableBody(runs: Locked<Int>) -> @Sendable () async -> Void {
  {
    let run = runs.withLock { count in
      count += 1
      return count
    }
    _ = await broadcastToThree { ids in
      var generator = SplitMix64(seed: UInt64(run))
      return ids.sorted().shuffled(using: &generator)
    }
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SearchCompletenessTests {
  @Test func anExhaustiveSearchWhoseSchedulesLeaveTheirPlanIsNotComplete() async {
    let runs = Locked(0)
    let result = await explore(.exhaustive(maxPreemptions: 1), unstableBody(runs: runs))
    #expect(result.offPlanSchedules > 0, "\(result)")
    #expect(result.distinctSchedules < result.schedulesRun)
    #expect(!result.isComplete)
    #expect("\(result)".contains("not complete"), "\(result)")
    #expect(!"\(result)".contains("all of them"), "\(result)")
  }

  @Test func aStableBodysExhaustiveSearchRunsEveryScheduleAsPlannedAndIsComplete() async {
    let result = await explore(.exhaustive(maxPreemptions: 1)) {
      let tasks = (0..<2).map { _ in Task { await Task.yield() } }  // allowed: choice points
      for task in tasks { await task.value }
    }
    #expect(result.offPlanSchedules == 0)
    #expect(result.isComplete)
    #expect(result.hashingIsDeterministic == HashingDeterminism.inProcess)
    #expect("\(result)".contains("all of them"), "\(result)")
  }

  @Test func randomSchedulesMayRepeatWithoutCountingAsOffPlan() async {
    let result = await explore(.random(schedules: 50, seed: 3)) {
      let tasks = (0..<2).map { _ in Task { await Task.yield() } }  // allowed: choice points
      for task in tasks { await task.value }
    }
    #expect(result.distinctSchedules < result.schedulesRun)
    #expect(result.offPlanSchedules == 0)
    #expect(result.isComplete)
  }
}
