import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// What outside work does to a run's decisions (``RunState/next(previousStepSuspendedAt:ranInActorJob:)``):
/// which kinds keep virtual time still, which only hold a deadlock report back, and which end
/// which.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct OutsideWorkStateTests {
  /// A run whose body ran once and now waits, with a sleeper due in 5 s of virtual time.
  private func runWithASleeper() -> RunState<FakeJob> {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(10))
    _ = state.next()
    _ = state.schedule(FakeJob(11), sleep: SleepRequest(delay: .seconds(5)), sleeper: nil)
    return state
  }

  private func isWaiting(_ step: RunState<FakeJob>.Step) -> Bool {
    if case .waitingForOutsideWork = step { return true }
    return false
  }

  @Test(arguments: [OutsideWork.Kind.async, .groupAsync, .sourceEvent, .thread])
  func workThatRunsNowKeepsTimeStillUntilItReturns(kind: OutsideWork.Kind) throws {
    var state = runWithASleeper()
    let begun = state.beginOutsideWork(kind, label: "io", byRunningJob: true)
    let id = try #require(begun)
    #expect(isWaiting(state.next()))
    #expect(state.now == .zero)
    #expect(state.endOutsideWork(id) == .wakeDrain, "the drain waits and must be woken")
    guard case .run(let woke) = state.next() else {
      Issue.record("expected the sleeper")
      return
    }
    #expect(woke == FakeJob(11) && state.now == .seconds(5))
  }

  @Test(arguments: [OutsideWork.Kind.after, .groupNotify, .sourceRegistration])
  func workThatWaitsLetsTimeMoveButHoldsTheDeadlockBack(kind: OutsideWork.Kind) throws {
    var state = runWithASleeper()
    let begun = state.beginOutsideWork(kind, label: nil, byRunningJob: true)
    let id = try #require(begun)
    guard case .run = state.next() else {
      Issue.record("expected the sleeper to wake: \(kind) holds no time")
      return
    }
    #expect(state.now == .seconds(5))
    // Nothing left to run, and no deadlock while the work is in flight.
    #expect(isWaiting(state.next()))
    _ = state.endOutsideWork(id)
    guard case .stuck = state.next() else {
      Issue.record("expected stuck once the work returned")
      return
    }
  }

  /// A thread or a block waiting on a semaphore the run made lets time move until the wait
  /// returns; a signal holds time again until it is back.
  @Test(arguments: [OutsideWork.Kind.async, .thread])
  func workWaitingOnTheRunsSemaphoreLetsTimeMove(kind: OutsideWork.Kind) throws {
    var state = runWithASleeper()
    let semaphore: UInt = 0x5E4A
    state.noteCreatedWaitObject(semaphore)
    let begun = state.beginOutsideWork(kind, label: nil, byRunningJob: true)
    let id = try #require(begun)
    #expect(state.outsideWorkWaits(id, on: semaphore) == .rests)
    // A signal from the run: the waiter is on its way back, and holds time until it is.
    state.signalParked(semaphore, all: false)
    #expect(isWaiting(state.next()))
    #expect(state.now == .zero)
    state.outsideWorkWaitReturned(id)
    #expect(isWaiting(state.next()), "the work runs on: it holds time")
    // Waiting again, unsignalled: the drain, which waits for the work, looks again; the sleeper
    // wakes.
    #expect(state.outsideWorkWaits(id, on: semaphore) == .restsAndWakesDrain)
    guard case .run(let woke) = state.next() else {
      Issue.record("expected the sleeper to wake while the work waits")
      return
    }
    #expect(woke == FakeJob(11) && state.now == .seconds(5))
  }

  /// A single signal that wakes a parked job of the run is not also on its way to outside work
  /// waiting on the same semaphore: that work rests on; the next signal is its.
  @Test func aSignalThatWakesAParkedJobLeavesOutsideWorkResting() throws {
    var state = runWithASleeper()
    let semaphore: UInt = 0x5E4A
    state.noteCreatedWaitObject(semaphore)
    let begun = state.beginOutsideWork(.thread, label: nil, byRunningJob: true)
    let id = try #require(begun)
    #expect(state.outsideWorkWaits(id, on: semaphore) == .rests)
    let parked = state.park(.semaphore, on: semaphore, timeout: nil, onTimeout: { _ in {} })
    #expect(parked != nil)
    state.signalParked(semaphore, all: false)
    #expect(!state.outsideWork.holdsTime, "the signal woke the parked job")
    state.signalParked(semaphore, all: false)
    #expect(state.outsideWork.holdsTime, "the second signal is on its way to the thread")
  }

  /// A wait on a semaphore from outside the run may end without the run: it holds time still.
  @Test func workWaitingOnAForeignSemaphoreHoldsTime() throws {
    var state = runWithASleeper()
    let begun = state.beginOutsideWork(.thread, label: nil, byRunningJob: true)
    let id = try #require(begun)
    #expect(state.outsideWorkWaits(id, on: 0xF0E1) == .waitsAlone)
    #expect(isWaiting(state.next()))
    #expect(state.now == .zero)
  }

  /// XCTest's waiter: the run waits for it until it rests; while it rests virtual time moves, to
  /// its wake-up first; once the run ends the rest, the run waits for it again.
  @Test func anExpectationWaiterIsWaitedForExceptWhileItRests() throws {
    var state = runWithASleeper()
    let begun = state.beginOutsideWork(.expectationWaiter, label: nil, byRunningJob: true)
    let id = try #require(begun)
    #expect(isWaiting(state.next()), "a new waiter is waited for until it rests")
    let woke = Locked(0)
    guard case .restAndWakeDrain = state.outsideWorkRests(id, for: .seconds(1), { woke.withLock { $0 += 1 } })
    else {
      Issue.record("expected a rest that wakes the drain, which waited for the new waiter")
      return
    }
    guard case .fire(let action) = state.next() else {
      Issue.record("expected the waiter's wake-up, due before the sleeper")
      return
    }
    #expect(state.now == .seconds(1))
    action()
    state.outsideWorkWakes(id, byRun: true, dropping: nil)
    #expect(woke.withLock { $0 } == 1)
    #expect(isWaiting(state.next()), "a waiter the run woke is waited for")
    #expect(state.outsideWorkRests(id, for: .seconds(10)) {} != .waitInRealTime)
    guard case .run(let job) = state.next() else {
      Issue.record("expected the sleeper, due before the waiter's second wake-up")
      return
    }
    #expect(job == FakeJob(11) && state.now == .seconds(5))
  }

  /// `queue.sync` waits only for blocks that are on the queue: queued to run now, not waiting for
  /// a delay or a group.
  @Test func onlyBlocksOnTheQueueMakeASyncCallWait() throws {
    var state = runWithASleeper()
    let queue: UInt = 0x1000
    _ = state.beginOutsideWork(.after, label: nil, queue: queue, byRunningJob: true)
    _ = state.beginOutsideWork(.groupNotify, label: nil, queue: queue, byRunningJob: true)
    #expect(!state.outsideWork.hasWork(onQueue: queue))
    let begun = state.beginOutsideWork(.async, label: nil, queue: queue, byRunningJob: true)
    let id = try #require(begun)
    #expect(state.outsideWork.hasWork(onQueue: queue))
    #expect(!state.outsideWork.hasWork(onQueue: 0x2000))
    _ = state.endOutsideWork(id)
    #expect(!state.outsideWork.hasWork(onQueue: queue))
  }

  /// A job that ends a waiter's rest lets it go only once the job's step is over.
  @Test func aWaiterAJobWokeGoesOnAfterTheStep() throws {
    var state = runWithASleeper()
    let begun = state.beginOutsideWork(.expectationWaiter, label: nil, byRunningJob: true)
    let id = try #require(begun)
    let rest = state.outsideWorkRests(id, for: .seconds(60)) {}
    guard case .rest(let timer) = rest else {
      Issue.record("expected a rest, the drain not waiting: \(rest)")
      return
    }
    let released = Locked(false)
    state.outsideWorkWakes(
      id, byRun: true, dropping: timer, release: { released.withLock { $0 = true } })
    #expect(!released.withLock { $0 })
    guard case .fire(let release) = state.next() else {
      Issue.record("expected the release before anything else")
      return
    }
    release()
    #expect(released.withLock { $0 })
    #expect(isWaiting(state.next()), "then the run waits for the waiter")
    _ = state.endOutsideWork(id)
    guard case .run = state.next() else {
      Issue.record("expected the sleeper once the waiter resumed the run")
      return
    }
    #expect(state.now == .seconds(5), "the dropped wake-up did not move time")
  }

  @Test func aSignalIsAwaitedOnlyWhereASourceMayHandleItAndEndsWhenOneDoes() throws {
    var state = runWithASleeper()
    let withoutSource = state.beginOutsideWork(.signal, label: nil, byRunningJob: true)
    #expect(withoutSource == nil)
    let owner = state.beginOutsideWork(.sourceOwner, label: nil, byRunningJob: true)
    #expect(owner == nil, "a source's owner is not work in flight")
    let signal = state.beginOutsideWork(.signal, label: nil, byRunningJob: true)
    #expect(signal != nil)
    #expect(isWaiting(state.next()), "a signal on its way keeps time still")
    let begun = state.beginOutsideWork(.sourceEvent, label: nil, byRunningJob: false)
    let event = try #require(begun)
    #expect(state.outsideWork.inFlight.map(\.kind) == [.sourceEvent])
    _ = state.endOutsideWork(event)
    guard case .run = state.next() else {
      Issue.record("expected the sleeper")
      return
    }
  }

  @Test func noWorkIsTakenBetweenJobsOrAfterTheBody() {
    var state = RunState<FakeJob>(order: .fifo)
    _ = state.enqueue(FakeJob(10))
    _ = state.next()
    guard case .stuck = state.next() else {
      Issue.record("expected stuck")
      return
    }
    // Between jobs the run's thread runs Lockstep's own code.
    let betweenJobs = state.beginOutsideWork(.thread, label: nil, byRunningJob: true)
    #expect(betweenJobs == nil)
    state.markBodyFinished()
    let afterTheBody = state.beginOutsideWork(.async, label: nil, byRunningJob: false)
    #expect(afterTheBody == nil)
  }

  @Test func aRecordSaysWhatTheWorkIsWhereAndWhoStartedIt() {
    let record = OutsideWork.Record(kind: .async, label: "com.example.io", startedBy: 3, step: 11)
    #expect(
      record.description
        == "a block queued with DispatchQueue.async on \"com.example.io\" by task 3 at step 12")
    let nested = OutsideWork.Record(kind: .thread, label: nil, startedBy: nil, step: nil)
    #expect(nested.description.hasSuffix(", by other outside work"))
  }
}
