import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// What parked jobs do to a run's decisions (``RunState/next(previousStepSuspendedAt:ranInActorJob:)``): when
/// virtual time may move past them, which resumes first, when the run waits for a thread.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ParkedWaitsStateTests {
  private static let semaphore: UInt = 0x1000
  private static let other: UInt = 0x2000

  /// A run whose body (task 1) runs and parks on `object`, created by the run or not.
  private func runWithAParkedBody(
    on object: UInt = semaphore, createdByRun: Bool = true, timeout: Duration? = nil,
    holdsMainActor: Bool = false
  ) throws -> (RunState<FakeJob>, UInt64) {
    var state = RunState<FakeJob>(order: .fifo)
    if createdByRun { state.noteCreatedWaitObject(object) }
    _ = state.enqueue(FakeJob(10))
    _ = state.next()
    let parked = state.park(
      .semaphore, on: object, timeout: timeout, holdsMainActor: holdsMainActor, onTimeout: { _ in {} })
    return (state, try #require(parked))
  }

  private func isWaiting(_ step: RunState<FakeJob>.Step) -> Bool {
    if case .waitingForOutsideWork = step { return true }
    return false
  }

  private func resumed(_ step: RunState<FakeJob>.Step) -> ParkedWaits.Wait? {
    if case .resume(let wait) = step { return wait }
    return nil
  }

  /// A stop of a run loop wakes the wait parked in it, once, and no wait in another run loop; the
  /// run waits for its thread before anything else.
  @Test func aStoppedRunLoopWakesItsOwnWaitOnce() throws {
    var state = RunState<FakeJob>(order: .fifo)
    state.noteCreatedWaitObject(Self.semaphore)
    _ = state.enqueue(FakeJob(10))
    _ = state.next()
    let parked = state.park(.runLoop, on: Self.semaphore, timeout: .seconds(1), onTimeout: { _ in {} })
    let id = try #require(parked)
    #expect(state.stopRunLoopWait(Self.other) == .none)
    #expect(state.stopRunLoopWait(Self.semaphore) == .wakeThread(id))
    #expect(state.stopRunLoopWait(Self.semaphore) == .none, "a second stop finds no waiting wait")
    _ = state.enqueue(FakeJob(11))
    #expect(isWaiting(state.next()), "the woken thread is not back yet")
    #expect(state.parkedReturned(id) == .wakeDrainAndWaitForTurn(.signalled))
    #expect(resumed(state.next())?.kind == .runLoop)
  }

  /// A job parked in `queue.sync` behind the run's last block on that queue is on its way back
  /// once the block returns — also when it returned before the job parked: the run waits for it
  /// instead of declaring a deadlock.
  @Test(arguments: [false, true])
  func aSyncCallBehindTheRunsLastBlockIsWaitedFor(blockReturnsFirst: Bool) throws {
    var state = RunState<FakeJob>(order: .fifo)
    state.noteCreatedWaitObject(Self.semaphore)
    _ = state.enqueue(FakeJob(10))
    _ = state.next()
    let begun = state.beginOutsideWork(.async, label: "queue", queue: Self.semaphore, byRunningJob: true)
    let block = try #require(begun)
    if blockReturnsFirst { _ = state.endOutsideWork(block) }
    let parked = state.park(.sync, on: Self.semaphore, timeout: nil, onTimeout: { _ in {} })
    let id = try #require(parked)
    if !blockReturnsFirst { _ = state.endOutsideWork(block) }
    #expect(isWaiting(state.next()), "the sync call returns once the queue is free")
    _ = state.parkedReturned(id)
    #expect(resumed(state.next())?.kind == .sync)
  }

  /// A wait on a semaphore the run made is durably blocked: a sleeper's time comes; a signal from
  /// the run wakes it, the run waits for its thread, then resumes it before anything else.
  @Test func aDurableWaitLetsTimeMoveAndASignalResumesItFirst() throws {
    var (state, id) = try runWithAParkedBody()
    _ = state.schedule(FakeJob(11), sleep: SleepRequest(delay: .seconds(5)), sleeper: nil)
    guard case .run(let woke) = state.next() else {
      Issue.record("the sleeper did not run")
      return
    }
    #expect(woke == FakeJob(11))
    #expect(state.now == .seconds(5))
    state.signalParked(Self.semaphore, all: false)
    _ = state.enqueue(FakeJob(12))
    #expect(isWaiting(state.next()), "the woken thread is not back yet")
    #expect(state.parkedReturned(id) == .wakeDrainAndWaitForTurn(.signalled))
    #expect(resumed(state.next())?.task == 1, "the parked body resumes before the ready job")
    guard case .run(let next) = state.next() else {
      Issue.record("the ready job did not run")
      return
    }
    #expect(next == FakeJob(12))
  }

  /// A wait on a semaphore from outside the run may be ended by a thread the run does not see:
  /// virtual time stands still and no deadlock is declared.
  @Test func aWaitOnASemaphoreFromOutsideKeepsTimeStill() throws {
    var (state, id) = try runWithAParkedBody(createdByRun: false)
    _ = state.schedule(FakeJob(11), sleep: SleepRequest(delay: .seconds(5)), sleeper: nil)
    #expect(isWaiting(state.next()))
    #expect(state.now == .zero)
    _ = state.parkedReturned(id)
    #expect(resumed(state.next()) != nil)
  }

  /// Nothing can end a durable wait: the run is stuck, never finished, even once the body is.
  @Test func aWaitNothingCanEndIsStuck() throws {
    var (state, _) = try runWithAParkedBody()
    guard case .stuck = state.next() else {
      Issue.record("not stuck")
      return
    }
    state.markBodyFinished()
    guard case .stuck = state.next() else {
      Issue.record("a run with a parked job finished")
      return
    }
  }

  /// The wait's timeout is a wake-up in virtual time; the wait then returns timed out.
  @Test func aTimeoutPassesInVirtualTime() throws {
    var (state, id) = try runWithAParkedBody(timeout: .seconds(5))
    guard case .fire = state.next() else {
      Issue.record("the timeout did not fire")
      return
    }
    #expect(state.now == .seconds(5))
    #expect(state.timeOutParked(id) == .wakeThread(id), "the thread must be woken")
    #expect(isWaiting(state.next()))
    #expect(state.parkedReturned(id) == .wakeDrainAndWaitForTurn(.timedOut))
    #expect(resumed(state.next()) != nil)
  }

  /// libdispatch wakes one waiter of a semaphore, not necessarily the one the run chose: the thread
  /// that comes back takes the turn, and the other waits on.
  @Test func theThreadTheKernelWokeTakesTheTurn() throws {
    var (state, first) = try runWithAParkedBody()
    _ = state.enqueue(FakeJob(11))
    _ = state.next()
    let parked = state.park(.semaphore, on: Self.semaphore, timeout: nil, onTimeout: { _ in {} })
    let second = try #require(parked)
    state.signalParked(Self.semaphore, all: false)  // wakes the first, the oldest
    let returned = state.parkedReturned(second)  // but the kernel woke the second
    #expect(returned.end == .signalled)
    #expect(resumed(state.next())?.id == second)
    guard case .stuck = state.next() else {
      Issue.record("the first wait was not waiting again")
      return
    }
    _ = first
  }

  /// A parked thread that holds the main actor keeps main-actor jobs from running until it
  /// resumes; other jobs run meanwhile.
  @Test func mainActorJobsWaitForAParkedThreadThatHoldsTheMainActor() throws {
    var (state, id) = try runWithAParkedBody(holdsMainActor: true)
    _ = state.enqueue(FakeJob(11, main: true))
    _ = state.enqueue(FakeJob(12))
    guard case .run(let first) = state.next() else {
      Issue.record("nothing ran")
      return
    }
    #expect(first == FakeJob(12))
    state.signalParked(Self.semaphore, all: false)
    _ = state.parkedReturned(id)
    #expect(resumed(state.next()) != nil)
    guard case .run(let second) = state.next() else {
      Issue.record("the main-actor job did not run after the resume")
      return
    }
    #expect(second == FakeJob(11, main: true))
  }

  /// Leaving a group wakes every wait on it; a signal of another semaphore wakes none.
  @Test func aGroupWakesAllItsWaitsAndOtherSignalsNone() throws {
    var (state, id) = try runWithAParkedBody()
    state.signalParked(Self.other, all: true)
    guard case .stuck = state.next() else {
      Issue.record("another object's signal woke the wait")
      return
    }
    state.signalParked(Self.semaphore, all: true)
    #expect(isWaiting(state.next()))
    _ = state.parkedReturned(id)
    #expect(resumed(state.next()) != nil)
  }
}
