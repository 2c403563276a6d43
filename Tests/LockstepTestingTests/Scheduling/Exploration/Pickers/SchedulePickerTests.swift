import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Every interleaving of the simulated tasks, found depth-first by `ExhaustiveSearch`.
private func exhaustiveOrders(tasks: Int, jobs: Int, maxPreemptions: Int) -> [[Int]] {
  var orders: [[Int]] = []
  var plan: [Int?]? = []
  while let next = plan {
    var picker = GuidedPicker(plan: next)
    orders.append(simulateTasks(&picker, tasks: tasks, jobs: jobs))
    plan = ExhaustiveSearch.nextPlan(after: picker.record, maxPreemptions: maxPreemptions)
  }
  return orders
}

/// Every interleaving, by brute force, with its number of preemptions (also for `ShardTests`).
func allOrders(tasks: Int, jobs: Int) -> [(order: [Int], preemptions: Int)] {
  var result: [([Int], Int)] = []
  func extend(_ order: [Int], _ remaining: [Int], _ preemptions: Int) {
    let ready = (1...tasks).filter { remaining[$0 - 1] > 0 }
    if ready.isEmpty {
      result.append((order, preemptions))
      return
    }
    for task in ready {
      var left = remaining
      left[task - 1] -= 1
      let previous = order.last ?? 0
      let preempts = ready.count > 1 && previous != 0 && ready.contains(previous) && task != previous
      extend(order + [task], left, preemptions + (preempts ? 1 : 0))
    }
  }
  extend([], Array(repeating: jobs, count: tasks), 0)
  return result
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SchedulePickerTests {
  @Test(arguments: [(2, 2), (2, 3), (3, 1), (3, 2)])
  func exhaustiveSearchRunsEveryScheduleWithinTheBoundExactlyOnce(_ shape: (Int, Int)) {
    let (tasks, jobs) = shape
    let everything = allOrders(tasks: tasks, jobs: jobs)
    for bound in 0...3 {
      let found = exhaustiveOrders(tasks: tasks, jobs: jobs, maxPreemptions: bound)
      let expected = everything.filter { $0.preemptions <= bound }.map(\.order)
      #expect(Set(found) == Set(expected), "bound \(bound)")
      #expect(found.count == expected.count, "no schedule twice, bound \(bound)")
    }
  }

  @Test func withoutPreemptionsEachTaskRunsToItsEnd() {
    // Two tasks of three jobs: only the order of the two tasks can change.
    #expect(
      exhaustiveOrders(tasks: 2, jobs: 3, maxPreemptions: 0) == [[1, 1, 1, 2, 2, 2], [2, 2, 2, 1, 1, 1]])
  }

  @Test func randomPicksRepeatForTheSameSeed() {
    func order(_ seed: UInt64) -> [Int] {
      var picker = RandomPicker(seed: seed)
      return simulateTasks(&picker, tasks: 3, jobs: 4)
    }
    #expect(order(5) == order(5))
    #expect(Set((0..<20).map { order($0) }).count > 10)
  }

  @Test func pctOfDepthOneRunsTasksByPriorityWithoutPreemption() {
    var firstTasks: Set<[Int]> = []
    for seed in 0..<200 as Range<UInt64> {
      var picker = PCTPicker(seed: seed, depth: 1, expectedLength: 10)
      let order = simulateTasks(&picker, tasks: 3, jobs: 3)
      #expect(picker.record.preemptions == 0)
      #expect(order.count == 9)
      firstTasks.insert(stride(from: 0, to: order.count, by: 3).map { order[$0] })
    }
    #expect(firstTasks.count == 6)  // every priority order shows up
  }

  @Test func pctOfDepthTwoPreemptsAtMostOnce() {
    var preempted = 0
    for seed in 0..<200 as Range<UInt64> {
      var picker = PCTPicker(seed: seed, depth: 2, expectedLength: 8)
      _ = simulateTasks(&picker, tasks: 2, jobs: 4)
      #expect(picker.record.preemptions <= 1)
      preempted += picker.record.preemptions
    }
    #expect(preempted > 0)
  }

  @Test func aGuidedPickerNotesWhereTheRunLeavesTheRecordedSchedule() throws {
    let check = ScheduleCheck(readyCounts: [2, 2], chosenTasks: [1, 2], whole: nil)
    var picker = GuidedPicker(plan: [0, 1], check: check)
    #expect(picker.pick(among: [1, 2], previous: 0, step: 3) == 0)  // task 1, as recorded
    #expect(picker.divergence == nil)
    // As many jobs, in another order: choice 1 now runs task 1, not task 2.
    #expect(picker.pick(among: [2, 1], previous: 1, step: 7) == 1)
    let divergence = try #require(picker.divergence)
    #expect(divergence.choicePoint == 2 && divergence.step == 8, "reports count from 1")
    #expect(divergence.difference.contains("ran task 1"), "\(divergence.difference)")

    var counted = GuidedPicker(plan: [0], check: check)
    _ = counted.pick(among: [1, 2, 3], previous: 0, step: 0)
    #expect(counted.divergence?.difference == "3 jobs were ready where the recorded schedule had 2")
    #expect(counted.divergence?.choicePoint == 1, "reports count from 1")
  }

  @Test func aReplayWhoseChoicesAllMatchStillChecksItsSteps() {
    func trace(_ tasks: [Int]) -> SchedulerTrace {
      var trace = SchedulerTrace()
      trace.steps = tasks.map { .init(task: $0, isMainActor: false, time: .zero, wokeFromSleep: false) }
      return trace
    }
    var picker = GuidedPicker(plan: [1])
    _ = picker.pick(among: [1, 2], previous: 1, step: 1)
    let recorded = trace([1, 2, 1, 2])
    let token = ReplayToken(record: picker.record, cancelAtWait: nil, trace: recorded)
    var again = GuidedPicker(replaying: token)
    _ = again.pick(among: [1, 2], previous: 1, step: 1)
    #expect(ScheduleCheck.divergence(of: token, picker: again, trace: recorded) == nil)
    let reordered = ScheduleCheck.divergence(of: token, picker: again, trace: trace([1, 2, 2, 1]))
    #expect(reordered?.choicePoint == nil)
    #expect(reordered?.difference.contains("another order") == true)
    let longer = ScheduleCheck.divergence(of: token, picker: again, trace: trace([1, 2, 1, 2, 1]))
    #expect(longer?.difference.contains("took 5 steps where the recorded schedule took 4") == true)
    // A run with fewer choice points than the token.
    let none = GuidedPicker(replaying: token)
    #expect(ScheduleCheck.divergence(of: token, picker: none, trace: recorded)?.choicePoint == 1)
  }

  @Test func theTokenOfACrashIsAPrefixThatLaterChoicePointsMayFollow() {
    let choices = ScheduleCheck(readyCounts: [2], chosenTasks: [2], whole: nil)
    let prefix = ReplayToken(choices: [1], cancelAtWait: nil, check: choices)
    var picker = GuidedPicker(replaying: prefix)
    _ = picker.pick(among: [1, 2], previous: 1, step: 1)
    _ = picker.pick(among: [1, 2], previous: 2, step: 2)  // after the crash point: default choices
    #expect(picker.record.choices == [1, 1])
    #expect(ScheduleCheck.divergence(of: prefix, picker: picker, trace: SchedulerTrace()) == nil)
    // The same choice points against a token of a whole schedule: one too many.
    let whole = ReplayToken(
      choices: [1], cancelAtWait: nil,
      check: ScheduleCheck(
        readyCounts: [2], chosenTasks: [2], whole: ScheduleCheck.Whole(steps: 0, checksum: 0)))
    let divergence = ScheduleCheck.divergence(of: whole, picker: picker, trace: SchedulerTrace())
    #expect(divergence?.choicePoint == 2 && divergence?.step == 3)
  }

  @Test func aGuidedPickerFallsBackToTheDefaultWhenAChoiceNoLongerFits() {
    var picker = GuidedPicker(plan: [5])
    #expect(picker.pick(among: [1, 2], previous: 2, step: 0) == 1)
    #expect(picker.diverged)
  }
}
