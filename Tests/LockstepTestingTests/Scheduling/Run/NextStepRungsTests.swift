import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The rungs of ``RunState/next(previousStepSuspendedAt:ranInActorJob:)``, each asked alone: what
/// it gives when its case holds, and that it gives nothing, changing nothing, when it does not.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct NextStepRungsTests {
  /// A run whose body (task 1) ran once and now waits.
  private func runOfAWaitingBody() -> RunState<FakeJob> {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(10))
    _ = state.next()
    return state
  }

  @Test func aRunGivenUpIsAbandonedAndNothingElseIsAsked() {
    var state = runOfAWaitingBody()
    _ = state.enqueue(FakeJob(11))
    #expect(name(of: state.nextIfGivenUp()) == nil)
    _ = state.next()
    #expect(state.abandonBlockedJob() == .reportBlocked(blockedTask: 2))
    #expect(state.abandonBlockedJob() == .none, "a run given up is given up once")
    #expect(state.enqueue(FakeJob(10)) == .held)
    #expect(name(of: state.nextIfGivenUp()) == "abandoned")
    #expect(name(of: state.next()) == "abandoned")
    #expect(state.jobInProgress.task == nil)
  }

  @Test func aTaskThatSleepsUntilARealDeadlineFromItsLastStopsTheRun() {
    var state = runOfAWaitingBody()
    func sleep(until seconds: Int64) -> SleepRequest {
      SleepRequest(until: .seconds(seconds), on: .continuous, now: .zero, jobStart: .zero)
    }
    _ = state.schedule(FakeJob(11), sleep: sleep(until: 10), sleeper: 10)
    #expect(name(of: state.next()) == "run")  // the sleep ends in virtual time
    #expect(name(of: state.nextIfGivenUp()) == nil)
    // Its next deadline is the last one plus a whole second: the real clock never catches up.
    _ = state.schedule(FakeJob(12), sleep: sleep(until: 11), sleeper: 10)
    #expect(name(of: state.nextIfGivenUp()) == "stopped")
    #expect(state.jobInProgress.task == nil)
  }

  @Test func aFailureBoundFiresBeforeALaterSleeperAndTheSleeperThenWakes() {
    var state = runOfAWaitingBody()
    #expect(name(of: state.nextTimerOrSleeper()) == nil, "nothing pending")
    _ = state.schedule(FakeJob(11), sleep: SleepRequest(delay: .seconds(5)), sleeper: nil)
    _ = state.startTimer(after: .seconds(2), wakes: true) {}
    #expect(name(of: state.nextTimerOrSleeper()) == "fire")
    #expect(state.now == .seconds(2))
    #expect(name(of: state.nextTimerOrSleeper()) == "run")
    #expect(state.now == .seconds(5))
    #expect(state.trace.steps.last?.wokeFromSleep == true)
  }

  /// Once a deadlock is reported, virtual time stands still for sleepers — their time would run
  /// out only because the run gave up — and failure bounds fire.
  @Test func afterADeadlockReportSleepersWaitAndFailureBoundsFire() {
    var state = runOfAWaitingBody()
    _ = state.schedule(FakeJob(11), sleep: SleepRequest(delay: .seconds(1)), sleeper: nil)
    state.markDeadlockReported()
    #expect(name(of: state.nextTimerOrSleeper()) == nil, "the sleeper stays asleep")
    _ = state.startTimer(after: .seconds(10)) {}
    #expect(name(of: state.nextTimerOrSleeper()) == "fire")
    #expect(state.now == .seconds(10))
  }

  @Test func outsideWorkThatRunsNowHoldsTimeAndWorkForLaterDoesNot() {
    var state = runOfAWaitingBody()
    #expect(name(of: state.nextWaitForTimeHolders()) == nil)
    #expect(state.beginOutsideWork(.after, label: nil, byRunningJob: true) != nil)
    #expect(name(of: state.nextWaitForTimeHolders()) == nil, "a block queued for later holds no time")
    #expect(state.beginOutsideWork(.async, label: nil, byRunningJob: true) != nil)
    #expect(name(of: state.nextWaitForTimeHolders()) == "waitingForOutsideWork")
  }

  @Test func withNothingToRunTheRunIsStuckUnlessOutsideWorkIsInFlight() {
    var state = runOfAWaitingBody()
    #expect(state.beginOutsideWork(.after, label: nil, byRunningJob: true) != nil)
    #expect(name(of: state.nothingToRun()) == "waitingForOutsideWork")
    var alone = runOfAWaitingBody()
    #expect(name(of: alone.nothingToRun()) == "stuck")
  }

  /// A fresh run with a ready job: the rungs before it give nothing and leave the trace alone;
  /// the ready job is the step.
  @Test func theRungsBeforeAReadyJobGiveNothing() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(10))
    #expect(name(of: state.nextIfGivenUp()) == nil)
    #expect(name(of: state.nextParkedComingBack()) == nil)
    #expect(name(of: state.nextWokenOutsideWork()) == nil)
    #expect(name(of: state.nextChosenAtLockPoint()) == nil)
    #expect(state.trace.steps.isEmpty)
    #expect(name(of: state.nextReadyJob()) == "run")
    #expect(state.trace.steps.count == 1)
    #expect(name(of: state.nextReadyJob()) == nil)
  }

  /// The name of `step`'s case, `nil` for none.
  private func name(of step: RunState<FakeJob>.Step?) -> String? {
    switch step {
    case nil: nil
    case .run: "run"
    case .resume: "resume"
    case .fire: "fire"
    case .finished: "finished"
    case .stuck: "stuck"
    case .waitingForOutsideWork: "waitingForOutsideWork"
    case .stopped: "stopped"
    case .abandoned: "abandoned"
    }
  }
}
