/// Parked jobs: a job stopped mid-way in a blocking wait, on its own thread, while the run goes on
/// (``ParkedWaits``).
extension RunState {
  /// How a parked wait ended.
  enum ParkedWaitEnd: Equatable {
    /// Signalled, or woken by the run.
    case signalled
    /// Its deadline passed in virtual time, or the run ended.
    case timedOut
  }

  /// What the thread of a parked wait does once back from its wait.
  enum ParkedReturnAction: Equatable {
    /// Wait for the turn; the wait ended as said.
    case waitForTurn(ParkedWaitEnd)
    /// Wake the drain thread, which waits for this one, then wait for the turn.
    case wakeDrainAndWaitForTurn(ParkedWaitEnd)

    /// How the wait ended.
    var end: ParkedWaitEnd {
      switch self {
      case .waitForTurn(let end), .wakeDrainAndWaitForTurn(let end): end
      }
    }
  }

  /// What the shell does when the run ends the wait of a parked job.
  enum ParkedWakeAction: Equatable {
    case none
    /// Wake the thread of parked wait `id`.
    case wakeThread(UInt64)
  }

  /// The running job parks in a blocking wait of `kind` on `object`, for `timeout` of virtual time
  /// (`nil`: forever); `onTimeout` makes the action that ends the wait at its deadline. Returns the
  /// wait's id, or `nil` when the run takes no more (the job blocks as before).
  mutating func park(
    _ kind: ParkedWaits.Kind, on object: UInt, timeout: Duration?, holdsMainActor: Bool = false,
    actingTask: UInt64? = nil, onTimeout: (UInt64) -> @Sendable () -> Void
  ) -> UInt64? {
    guard phase == .running, let task = runningTask else { return nil }
    let step = trace.steps.count - 1
    let waiting = eventTask(actingTask) ?? task
    let id = parked.park(
      kind, on: object, task: task, waitingTask: waiting, step: step, holdsMainActor: holdsMainActor)
    // The run's last block on the queue may have returned since the job looked: the call is on
    // its way back.
    if kind == .sync && !outsideWork.hasWork(onQueue: object) { parked.wakeSyncWaits(on: object) }
    if let timeout {
      parked.setTimer(timers.start(at: time.now + max(timeout, .zero), wakes: true, onTimeout(id)), of: id)
    }
    if waiting != 0 {
      let what = Waiting.blockingCall(kind.call)
      tasks[waiting].waitingOn = what
      trace.events.append(SchedulerTrace.Event(step: step, task: waiting, kind: .waits(what)))
    }
    runningTask = nil
    return id
  }

  /// The job of parked wait `id` did not park after all: its semaphore was signalled, or its group
  /// emptied, as it parked. The job runs on.
  mutating func unpark(_ id: UInt64, task: Int) {
    if let wait = parked.remove(id) {
      if let timer = wait.timer { _ = timers.remove(timer) }
      if wait.waitingTask != 0 { tasks[wait.waitingTask].waitingOn = nil }
    }
    runningTask = task
  }

  /// A job of the run, or its outside work, signals semaphore `object` (the oldest parked wait on
  /// it is woken), or empties group `object` (`all` its waits are); outside work waiting on it
  /// holds time until it is back.
  mutating func signalParked(_ object: UInt, all: Bool) {
    guard phase == .running else { return }
    let wokeParked = parked.signal(object)
    while wokeParked && all && parked.signal(object) {}
    // A single signal that woke a parked job is not on its way to outside work too.
    if all || !wokeParked { outsideWork.signalled(object, all: all) }
  }

  /// Run loop `runLoop` was stopped: the parked wait in it that was still waiting is woken.
  mutating func stopRunLoopWait(_ runLoop: UInt) -> ParkedWakeAction {
    guard phase == .running, let id = parked.wakeRunLoopWait(runLoop) else { return .none }
    return .wakeThread(id)
  }

  /// A job of the run, or its outside work, created `object`, a semaphore, a group or a queue.
  mutating func noteCreatedWaitObject(_ object: UInt) {
    guard phase == .running else { return }
    parked.noteCreated(object)
  }

  /// The deadline of parked wait `id` passed.
  mutating func timeOutParked(_ id: UInt64) -> ParkedWakeAction {
    parked.timeOut(id) ? .wakeThread(id) : .none
  }

  /// The thread of parked wait `id` is back from its wait. (Once the run is over, the thread waits
  /// for its turn to go on without it: `ParkedJobs.handOnRunOver`.)
  mutating func parkedReturned(_ id: UInt64) -> ParkedReturnAction {
    let (timedOut, timer) = parked.returned(id)
    if let timer { _ = timers.remove(timer) }
    let end = timedOut ? ParkedWaitEnd.timedOut : .signalled
    guard phase == .running, drainWaiting else { return .waitForTurn(end) }
    drainWaiting = false
    return .wakeDrainAndWaitForTurn(end)
  }
}
