import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Three tasks of three jobs, run by a guided plan; the "bug" shows whenever task 3 runs before
/// task 1 has finished. Counts the schedules run.
private final class Program: @unchecked Sendable {
  var runs = 0
  /// Fails only when the schedule also cancels (for the cancellation tests).
  var needsCancellation = false

  func run(_ plan: [Int?], _ cancelAt: Int?) -> ScheduleOutcome {
    runs += 1
    var picker = GuidedPicker(plan: plan)
    let order = simulateTasks(&picker, tasks: 3, jobs: 3)
    let lastOfTask1 = order.lastIndex(of: 1)!
    let buggy = order.firstIndex(of: 3)! < lastOfTask1 && (!needsCancellation || cancelAt != nil)
    return ScheduleOutcome(
      failures: buggy ? ["task 3 ran before task 1 finished"] : [], trace: SchedulerTrace(),
      record: picker.record, cancelAtWait: cancelAt, waits: 1, diverged: picker.diverged)
  }
}

/// Two bugs: "task 2 ran before task 3 finished" at one place, and "task 3 ran before task 1
/// finished" at another. A schedule that shows only the second can be simplified into one that
/// shows only the first, with fewer preemptions.
private final class TwoBugs: @unchecked Sendable {
  func run(_ plan: [Int?], _ cancelAt: Int?) -> ScheduleOutcome {
    var picker = GuidedPicker(plan: plan)
    let order = simulateTasks(&picker, tasks: 3, jobs: 3)
    var failures: [(message: String, site: String)] = []
    if order.firstIndex(of: 2)! < order.lastIndex(of: 3)! {
      failures.append(("task 2 ran before task 3 finished", "Bugs.swift:10:5"))
    }
    if order.firstIndex(of: 3)! < order.lastIndex(of: 1)! {
      failures.append(("task 3 ran before task 1 finished", "Bugs.swift:20:5"))
    }
    return ScheduleOutcome(
      failures: failures.map(\.message), trace: SchedulerTrace(), record: picker.record,
      cancelAtWait: cancelAt, waits: 1, diverged: picker.diverged, failureSite: failures.first?.site)
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ScheduleShrinkerTests {
  @Test func keepsTheFailureItWasGiven() async {
    let program = TwoBugs()
    // Task 1 twice, then 3 (a preemption), 1 again (another), then 3 and 2 …: only the second bug.
    let found = program.run([0, 0, 2, 0, 1, 1], nil)
    #expect(found.failures == ["task 3 ran before task 1 finished"] && found.record.preemptions > 1)
    let simplest = await ScheduleShrinker { plan, cancelAt in program.run(plan, cancelAt) }.shrink(found)
    #expect(simplest.failures.first == "task 3 ran before task 1 finished", "\(simplest.failures)")
    #expect(simplest.failureKey == found.failureKey)
    #expect(simplest.complexity < found.complexity)
  }

  /// A needlessly complicated failing schedule: many switches between the three tasks.
  private func complicatedFailure(_ program: Program, cancelAt: Int? = nil) -> ScheduleOutcome {
    program.run([1, 2, 0, 1, 0, 1, 0], cancelAt)
  }

  @Test func shrinksToFewerPreemptionsAndStillFails() async {
    let program = Program()
    let found = complicatedFailure(program)
    #expect(found.failed && found.record.preemptions > 1)
    let shrinker = ScheduleShrinker { plan, cancelAt in program.run(plan, cancelAt) }
    let simplest = await shrinker.shrink(found)
    #expect(simplest.failed)
    #expect(simplest.record.preemptions == 1, "one preemption suffices: \(simplest.record.choices)")
    #expect(simplest.complexity < found.complexity)
  }

  @Test func dropsAnInjectedCancellationThatTheFailureDoesNotNeed() async {
    let program = Program()
    let found = complicatedFailure(program, cancelAt: 0)
    let simplest = await ScheduleShrinker { plan, cancelAt in program.run(plan, cancelAt) }
      .shrink(found)
    #expect(simplest.failed && simplest.cancelAtWait == nil)
  }

  @Test func keepsAnInjectedCancellationThatTheFailureNeeds() async {
    let program = Program()
    program.needsCancellation = true
    let found = complicatedFailure(program, cancelAt: 0)
    let simplest = await ScheduleShrinker { plan, cancelAt in program.run(plan, cancelAt) }
      .shrink(found)
    #expect(simplest.failed && simplest.cancelAtWait == 0)
  }

  @Test func runsNoMoreSchedulesThanItsBudget() async {
    let program = Program()
    let found = complicatedFailure(program)
    program.runs = 0
    _ = await ScheduleShrinker(budget: 2) { plan, cancelAt in program.run(plan, cancelAt) }
      .shrink(found)
    #expect(program.runs <= 2)
  }
}
