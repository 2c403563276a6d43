/// Lock points: where a job of the run reaches a lock of the code under test, or a wait another
/// job might have come before, it goes on or parks; an exploration may choose another job first.
extension RunState {
  /// What a job that reaches a lock point does.
  enum LockPointAction: Equatable {
    /// It goes on (and takes the lock, unless it only tries it).
    case go
    /// It stops: its thread parks as wait `id` until the run resumes it.
    case park(UInt64)
  }

  /// What runs next, chosen at a lock point.
  enum ChosenAtLockPoint {
    case job(RunEntry<Job>)
    /// A job parked at a lock point, by wait id.
    case parked(UInt64)
  }

  /// The running job, on `thread`, reaches `lock` from `caller`: `tries` for a `trylock`, which
  /// takes the lock only once the C library gave it (``lockTaken(_:thread:caller:actingTask:)``).
  /// It waits when another job holds the lock, or a non-recursive lock it holds itself (a
  /// deadlock). Otherwise, when `mayChoose` and an exploration picks, the picker chooses between
  /// it going on and every other job that may run; the one chosen runs next.
  mutating func lockPoint(
    _ lock: UInt, thread: UInt, caller: UInt, recursive: Bool, tries: Bool, mayChoose: Bool,
    holdsMainActor: Bool = false, actingTask: UInt64? = nil
  ) -> LockPointAction {
    guard phase == .running, let task = runningTask else { return .go }
    let step = trace.steps.count - 1
    let waiting = eventTask(actingTask) ?? task
    if let holder = locks.holder(of: lock) {
      let own = holder.thread == thread
      // A trylock fails in the C library; a recursive lock is taken again.
      if tries || (own && recursive) {
        if !tries { locks.take(lock, thread: thread, task: waiting, caller: caller) }
        return .go
      }
      let id = parked.parkAtLock(
        lock, task: task, waitingTask: waiting, step: step, thread: thread, runnable: false,
        holdsMainActor: holdsMainActor)
      noteLockWait(.lock(heldBy: holder.task), task: waiting, step: step)
      runningTask = nil
      return .park(id)
    }
    if mayChoose,
      let id = offerChoice(
        at: lock, call: "a lock", task: task, waiting: waiting, thread: thread, holdsMainActor: holdsMainActor
      )
    {
      return .park(id)
    }
    if !tries { take(lock, thread: thread, task: waiting, caller: caller) }
    return .go
  }

  /// The running job, on `thread`, is about to wait on `object` — a semaphore, a group, a queue's
  /// `sync` — where another job might have run first: where an exploration picks and the run's
  /// jobs created `object`, the picker chooses between it going on and every other job that may
  /// run.
  mutating func choicePoint(
    at object: UInt, call: String, thread: UInt, holdsMainActor: Bool = false, actingTask: UInt64? = nil
  ) -> LockPointAction {
    // Only the code under test's own: Lockstep's, XCTest's and Swift Testing's waits are not.
    guard phase == .running, let task = runningTask, parked.isCreatedByRun(object),
      let id = offerChoice(
        at: object, call: call, task: task, waiting: eventTask(actingTask) ?? task, thread: thread,
        holdsMainActor: holdsMainActor)
    else { return .go }
    return .park(id)
  }

  /// Asks an exploration's picker whether the running job of `task` goes on at `object` or
  /// another job runs first; in the second case parks the job, runnable, and returns its wait's
  /// id. A job holding the main actor goes on: the main-actor jobs it would let run first could
  /// not run without the main actor.
  private mutating func offerChoice(
    at object: UInt, call: String, task: Int, waiting: Int, thread: UInt, holdsMainActor: Bool
  ) -> UInt64? {
    guard ready.isPicked, !holdsMainActor else { return nil }
    let others = parked.runnableLockWaits
    guard ready.eligibleCount + others.count > 0 else { return nil }
    let picked = ready.pick(
      leading: [task], trailing: others.map(\.task), previous: task, step: trace.steps.count)
    switch picked {
    case .leading: return nil
    case .job(let entry): chosenAtLockPoint = .job(entry)
    case .trailing(let index): chosenAtLockPoint = .parked(others[index].id)
    }
    let step = trace.steps.count - 1
    let id = parked.parkAtLock(
      object, task: task, waitingTask: waiting, step: step, thread: thread, runnable: true)
    noteLockWait(.turnAt(call), task: waiting, step: step)
    runningTask = nil
    return id
  }

  /// The running job's `trylock` on `thread` took `lock`, or a condition's wait took it back.
  mutating func lockTaken(_ lock: UInt, thread: UInt, caller: UInt, actingTask: UInt64? = nil) {
    guard phase == .running, let task = runningTask else { return }
    take(lock, thread: thread, task: eventTask(actingTask) ?? task, caller: caller)
  }

  /// The running job took a lock of `kind` that is no scheduling point (a read-write lock, or a
  /// lock taken while the runtime held one of its own): an exploration says so.
  mutating func noteLockNotScheduled(_ kind: String) {
    guard phase == .running, ready.isPicked, trace.locksNotScheduled.count < 8 else { return }
    trace.locksNotScheduled.insert(kind)
  }

  /// The job on `thread` let `lock` go: the jobs waiting for it may resume.
  mutating func lockReleased(_ lock: UInt, thread: UInt) {
    guard phase == .running, locks.release(lock, thread: thread) else { return }
    parked.lockFreed(lock)
  }

  private mutating func take(_ lock: UInt, thread: UInt, task: Int, caller: UInt) {
    locks.take(lock, thread: thread, task: task, caller: caller)
    for waiting in parked.lockTaken(lock) where waiting != 0 {
      tasks[waiting].waitingOn = .lock(heldBy: task)
    }
  }

  private mutating func noteLockWait(_ what: Waiting, task: Int, step: Int) {
    guard task != 0 else { return }
    tasks[task].waitingOn = what
    trace.events.append(SchedulerTrace.Event(step: step, task: task, kind: .waits(what)))
  }
}
