import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The firing rule of a run's timers, asked when no job is ready.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunTimersTests {
  private static let noAction: @Sendable () -> Void = {}

  @Test func aLoneFailureBoundWaitsForTheDeadlockReport() {
    var timers = RunTimers()
    _ = timers.start(at: .seconds(10), wakes: false, Self.noAction)
    // Nothing else could make progress: a deadlock, reported before the bound fires.
    #expect(timers.takeDue(nextSleeper: nil) == nil)
    timers.markDeadlockReported()
    #expect(timers.takeDue(nextSleeper: nil)?.deadline == .seconds(10))
    #expect(timers.takeDue(nextSleeper: nil) == nil)
  }

  @Test func aFailureBoundFiresBeforeALaterSleeperButNotAfterAnEarlierOne() {
    var timers = RunTimers()
    _ = timers.start(at: .seconds(10), wakes: false, Self.noAction)
    #expect(timers.takeDue(nextSleeper: .seconds(5)) == nil)  // the sleeper wakes first
    #expect(timers.takeDue(nextSleeper: .seconds(10)) == nil)  // a tie goes to the sleeper
    #expect(timers.takeDue(nextSleeper: .seconds(11))?.deadline == .seconds(10))
  }

  @Test func aWakeUpCountsAsProgress() {
    var timers = RunTimers()
    _ = timers.start(at: .seconds(3), wakes: true, Self.noAction)
    #expect(timers.takeDue(nextSleeper: nil)?.deadline == .seconds(3))

    // A failure bound earlier than a pending wake-up fires: the wake-up is progress later.
    _ = timers.start(at: .seconds(5), wakes: false, Self.noAction)
    _ = timers.start(at: .seconds(8), wakes: true, Self.noAction)
    #expect(timers.takeDue(nextSleeper: nil)?.deadline == .seconds(5))
    #expect(timers.takeDue(nextSleeper: nil)?.deadline == .seconds(8))
  }

  @Test func aRemovedTimerNeverFires() {
    var timers = RunTimers()
    let first = timers.start(at: .seconds(1), wakes: true, Self.noAction)
    _ = timers.start(at: .seconds(2), wakes: true, Self.noAction)
    #expect(timers.remove(first) != nil)
    #expect(timers.remove(first) == nil)
    #expect(timers.takeDue(nextSleeper: nil)?.deadline == .seconds(2))
    #expect(timers.count == 0)
  }

  @Test func removingTheOnlyOtherWakeUpMakesABoundWaitAgain() {
    var timers = RunTimers()
    _ = timers.start(at: .seconds(5), wakes: false, Self.noAction)
    let wake = timers.start(at: .seconds(8), wakes: true, Self.noAction)
    _ = timers.remove(wake)
    #expect(timers.takeDue(nextSleeper: nil) == nil)
  }

  @Test func timersLeftAtTheEndKeepTheirActionsForRealTime() {
    var timers = RunTimers()
    let id = timers.start(at: .seconds(10), wakes: false, Self.noAction)
    let pending = timers.moveToRealTime(now: .seconds(4))
    #expect(pending.map(\.id) == [id])
    #expect(pending.map(\.remaining) == [.seconds(6)])
    #expect(timers.remove(id) != nil)  // the real-time bound takes the action when it expires
  }

  @Test func aRunFiresADueTimerAndMovesVirtualTimeToIt() {
    struct Job: SchedulableJob {
      let taskID: UInt64?
      let isMainActor = false
    }
    var state = RunState<Job>(order: .fifo)
    _ = state.enqueue(Job(taskID: 1))
    _ = state.next()
    _ = state.startTimer(after: .seconds(2), wakes: true) {}
    guard case .fire = state.next() else {
      Issue.record("expected the wake-up to fire")
      return
    }
    #expect(state.now == .seconds(2))
    #expect(state.trace.steps.count == 1)  // a timer is not a step of the trace
  }
}
