/// Outside work: work the run's jobs hand to other threads (``OutsideWork``), and the drain's
/// wait for it.
extension RunState {
  /// What the shell does once outside work returned.
  enum OutsideWorkEndAction: Equatable {
    case none
    /// The drain thread waits for the work: wake it.
    case wakeDrain
  }

  /// What the shell does as outside work (XCTest's waiter) rests in virtual time.
  enum OutsideWorkRestAction: Equatable {
    /// The run takes no more, or does not know the work: it waits in real time.
    case waitInRealTime
    /// The work rests until timer `timer` ends its rest.
    case rest(timer: UInt64)
    /// As `rest`, and the drain thread, which waited for the work, looks again: wake it.
    case restAndWakeDrain(timer: UInt64)
  }

  /// What the shell does as outside work waits on an object.
  enum OutsideWaitAction: Equatable {
    /// The run takes no more, or does not know the work: it waits as before.
    case waitsAlone
    /// The work rests until its wait returns.
    case rests
    /// As `rests`, and the drain thread, which waited for the work, looks again: wake it.
    case restsAndWakesDrain
  }

  /// Work handed to another thread starts: by the running job when `byRunningJob`, otherwise by
  /// other outside work. Returns its id, or `nil` when the run no longer takes work or the work is
  /// not tracked (a signal the run has no source for).
  mutating func beginOutsideWork(
    _ kind: OutsideWork.Kind, label: String?, queue: UInt? = nil, byRunningJob: Bool
  ) -> UInt64? {
    guard phase == .running, !bodyFinished else { return nil }
    // Between two jobs the run's thread runs Lockstep's own code, whose threads are not the run's.
    if byRunningJob && runningTask == nil { return nil }
    switch kind {
    case .sourceOwner:
      sourceEventHandlers += 1
      return nil
    case .signal where sourceEventHandlers == 0:
      return nil
    case .sourceEvent:
      outsideWork.endAll(.signal)
    default:
      break
    }
    let step = byRunningJob ? trace.steps.count - 1 : nil
    return outsideWork.begin(
      OutsideWork.Record(
        kind: kind, label: label, queue: queue, startedBy: step == nil ? nil : runningTask, step: step))
  }

  /// The outside work of `id` returned.
  mutating func endOutsideWork(_ id: UInt64) -> OutsideWorkEndAction {
    let queue = outsideWork.queue(of: id)
    guard outsideWork.end(id) else { return .none }
    // A job parked in `queue.sync` behind the run's last block on that queue is on its way back:
    // the run waits for it, and declares no deadlock meanwhile.
    if let queue, !outsideWork.hasWork(onQueue: queue) { parked.wakeSyncWaits(on: queue) }
    return wakesDrain() ? .wakeDrain : .none
  }

  /// Outside work `id` (XCTest's waiter) waits for `delay` of virtual time: it holds time no
  /// longer, and `action` ends its wait at the deadline.
  mutating func outsideWorkRests(
    _ id: UInt64, for delay: Duration, _ action: @escaping @Sendable () -> Void
  ) -> OutsideWorkRestAction {
    guard phase == .running, outsideWork.rest(id),
      let timer = startTimer(after: delay, wakes: true, action)
    else { return .waitInRealTime }
    return wakesDrain() ? .restAndWakeDrain(timer: timer) : .rest(timer: timer)
  }

  /// Outside work `id` waits on `object` (a semaphore, a group) where Lockstep sees it: when the
  /// run's work created `object`, so that only the run can end the wait (durably blocked, as Go's
  /// `synctest` says), it holds time no longer until the wait returns.
  mutating func outsideWorkWaits(_ id: UInt64, on object: UInt) -> OutsideWaitAction {
    guard phase == .running, parked.isCreatedByRun(object), outsideWork.rest(id, on: object) else {
      return .waitsAlone
    }
    return wakesDrain() ? .restsAndWakesDrain : .rests
  }

  /// The wait of outside work `id` on an object returned: it holds time again.
  mutating func outsideWorkWaitReturned(_ id: UInt64) {
    outsideWork.waitReturned(id)
  }

  /// The rest of outside work `id` ended: `byRun` when the run ended it (its time was over, or a
  /// job stopped it), so that the run waits for it; `timer` is the wake-up to drop. A job that
  /// ends it passes `release`, which lets the work go on once the job's step is over.
  mutating func outsideWorkWakes(
    _ id: UInt64, byRun: Bool, dropping timer: UInt64?, release: (@Sendable () -> Void)? = nil
  ) {
    if let timer { _ = timers.remove(timer) }
    outsideWork.wake(id, byRun: byRun)
    if let release { outsideWorkReleases.append(release) }
  }

  // MARK: The drain's wait for other threads

  /// Whether the drain thread waits for outside work and must now look again; it stops waiting.
  private mutating func wakesDrain() -> Bool {
    guard drainWaiting, !outsideWork.hasWokenWork, !outsideWork.holdsTime || readyCount > 0 else {
      return false
    }
    drainWaiting = false
    return true
  }

  /// The drain thread stopped waiting for outside jobs.
  mutating func stopWaiting() { drainWaiting = false }

  /// Whether the drain thread, waiting for outside work, may look for its next step.
  var mayGoOnAfterOutsideWork: Bool {
    if hasReturnedParkedWait { return true }
    if parked.hasWokenWait || outsideWork.hasWokenWork { return false }
    return readyCount > 0 || !waitsForOtherThreads
  }

  /// Whether the run waits for another thread: outside work in flight, a parked job's wait on
  /// something from outside the run, or a parked job's thread the run woke.
  var waitsForOtherThreads: Bool { !outsideWork.isEmpty || parked.holdsTime || parked.hasWokenWait }

  /// Whether a parked job's thread is back and waits for its turn.
  var hasReturnedParkedWait: Bool { parked.waits.contains { $0.phase == .returned } }
}
