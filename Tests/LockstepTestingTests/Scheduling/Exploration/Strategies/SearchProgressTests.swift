import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Runs an exhaustive search over the simulated tasks (`tasks` tasks of `jobs` jobs each) until it
/// stops; returns how many schedules ran and what the strategy says is left.
private func search(
  maxPreemptions: Int, limit: Int = .max, tasks: Int, jobs: Int, cancellation: Bool = false,
  waits: Int = 0
) -> (ran: Int, complete: Bool, progress: SearchProgress?) {
  var strategy = ExhaustiveStrategy(
    maxPreemptions: maxPreemptions, limit: limit, injectsCancellation: cancellation)
  var step = strategy.next(after: nil)
  var ran = 0
  while case .run(var planned) = step {
    _ = simulateTasks(&planned.picker, tasks: tasks, jobs: jobs)
    ran += 1
    step = strategy.next(after: ScheduleReport(record: planned.picker.record, waits: waits))
  }
  guard case .done(let complete, _) = step else { return (ran, false, nil) }
  return (ran, complete, strategy.progress)
}

/// Two tasks that each hop to the main actor twice: many schedules, all passing.
@Sendable private func twoHoppingTasks() async {
  let first = Task(name: "first") { for _ in 0..<2 { await MainActor.run {} } }
  let second = Task(name: "second") { for _ in 0..<2 { await MainActor.run {} } }
  await first.value
  await second.value
}

/// What an exhaustive search that stops before the end says is left of it.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SearchProgressTests {
  @Test(arguments: [(0, 3, 2), (1, 3, 3), (2, 2, 4), (1, 4, 2)])
  func theSubtreesLeftNeverExceedTheSchedulesLeft(maxPreemptions: Int, tasks: Int, jobs: Int) async {
    await onAThreadOfItsOwn {
      let all = search(maxPreemptions: maxPreemptions, tasks: tasks, jobs: jobs)
      #expect(all.complete && all.ran > 2)
      for limit in 1..<all.ran {
        let stopped = search(maxPreemptions: maxPreemptions, limit: limit, tasks: tasks, jobs: jobs)
        #expect(!stopped.complete && stopped.ran == limit)
        guard let progress = stopped.progress else {
          Issue.record("no progress after \(limit) of \(all.ran) schedules")
          continue
        }
        // A lower bound: every untried subtree holds a schedule not run yet.
        #expect((1...(all.ran - limit)).contains(progress.subtreesLeft), "limit \(limit)")
        #expect(progress.estimatedSchedules > limit, "limit \(limit)")
      }
      // One schedule short of the end, exactly one is left.
      let last = search(maxPreemptions: maxPreemptions, limit: all.ran - 1, tasks: tasks, jobs: jobs)
      #expect(last.progress?.subtreesLeft == 1)
    }
  }

  @Test func theEstimateIsExactWhenEverySubtreeIsShapedLikeThePathAndNearOtherwise() {
    // Without preemptions, two tasks run one after the other: the first choice is the only one.
    let two = search(maxPreemptions: 0, limit: 1, tasks: 2, jobs: 3)
    #expect(two.progress?.untriedByDepth.first == 1)
    #expect(two.progress?.estimatedSchedules == 2)
    // With preemptions, the tasks that finish change the shape below the path; the estimate
    // stays within a factor of two of the truth here.
    let all = search(maxPreemptions: 1, tasks: 3, jobs: 3)
    let early = search(maxPreemptions: 1, limit: 5, tasks: 3, jobs: 3)
    let estimate = try? #require(early.progress?.estimatedSchedules)
    #expect(
      estimate.map { $0 * 2 >= all.ran && $0 <= all.ran * 2 } == true,
      "\(String(describing: estimate)) of \(all.ran)")
  }

  @Test func aCompleteSearchHasNothingLeft() {
    let all = search(maxPreemptions: 1, tasks: 2, jobs: 3)
    #expect(all.complete)
    #expect(all.progress?.subtreesLeft == 0)
    #expect(all.progress?.estimatedSchedules == all.ran)
  }

  @Test func passesWithACancellationAtEachWaitAreCountedAsLeft() {
    let all = search(maxPreemptions: 0, tasks: 2, jobs: 2, cancellation: true, waits: 2)
    #expect(all.complete && all.ran == 6)
    let stopped = search(maxPreemptions: 0, limit: 1, tasks: 2, jobs: 2, cancellation: true, waits: 2)
    #expect(stopped.progress?.passesLeft == 2)
    #expect(stopped.progress?.subtreesLeft == 3)
    #expect(stopped.progress?.estimatedSchedules == 6)
    // Stopped between two passes: the next pass is all left.
    let between = search(maxPreemptions: 0, limit: 2, tasks: 2, jobs: 2, cancellation: true, waits: 2)
    #expect(between.progress?.passesLeft == 2)
    #expect(between.progress?.estimatedSchedules == 6)
  }

  @Test func countsReadAsPeopleSayThem() {
    #expect(SearchProgress.roughly(37) == "37")
    #expect(SearchProgress.roughly(9_999) == "9999")
    #expect(SearchProgress.roughly(48_200) == "48,000")
    #expect(SearchProgress.roughly(2_000_000) == "2 million")
    #expect(SearchProgress.roughly(2_340_000) == "2.3 million")
    #expect(SearchProgress.roughly(7_100_000_000) == "7.1 billion")
  }

  @Test func anExplorationStoppedAtItsLimitSaysHowMuchIsLeft() async throws {
    let all = await explore(.exhaustive(maxPreemptions: 2)) { await twoHoppingTasks() }
    #expect(all.isComplete && all.progress == nil)
    let limited = await explore(.exhaustive(maxPreemptions: 2, limit: 3)) { await twoHoppingTasks() }
    let progress = try #require(limited.progress)
    #expect((1...(all.schedulesRun - 3)).contains(progress.subtreesLeft))
    #expect(progress.estimatedSchedules > 3)
    #expect(limited.description.contains("stopped before the end (at least \(progress.subtreesLeft) more"))
    #expect(
      limited.description.contains(
        "an estimated \(SearchProgress.roughly(progress.estimatedSchedules)) in all"))
  }
}
