/// The end of a run: its body finishes and the run finishes, or the run is quarantined or given
/// up, its jobs held for good.
extension RunState {
  /// What the shell does as the run finishes: forwards the jobs left to the platform executor
  /// after their remaining virtual delay, and moves the timers left to real time (their actions
  /// stay until removed).
  struct FinishAction {
    var forward: [(job: Job, remaining: Duration)]
    var timersInRealTime: [(id: UInt64, remaining: Duration)]
  }

  /// What the shell does when the watchdog gives the run up.
  enum AbandonAction: Equatable {
    /// No job runs, or the run is over: nothing.
    case none
    /// The run is quarantined: report that the job of task `blockedTask` (0 for a job of no task)
    /// held the thread.
    case reportBlocked(blockedTask: Int)
  }

  mutating func markBodyFinished() { bodyFinished = true }

  /// Ends the run.
  mutating func finish() -> FinishAction {
    phase = .finished
    unseenCreations = [:]
    var waiting = ready.removeAll().map { (job: $0.job, remaining: Duration.zero) }
    if case .job(let entry) = chosenAtLockPoint.take() { waiting.append((entry.job, .zero)) }
    let sleeping = time.removeAll().map { (job: $0.job.job, remaining: $0.remaining) }
    return FinishAction(forward: waiting + sleeping, timersInRealTime: timers.moveToRealTime(now: time.now))
  }

  /// Ends a run that cannot finish: every job still held, and every job that arrives later, is
  /// kept and never run.
  mutating func quarantineAll() {
    phase = .quarantined
    _ = parked.removeAll()
    quarantine += mainActorDeferred.map(\.job)
    mainActorDeferred.removeAll()
    unseenCreations = [:]
    quarantine += ready.removeAll().map(\.job)
    if case .job(let entry) = chosenAtLockPoint.take() { quarantine.append(entry.job) }
    quarantine += time.removeAll().map(\.job.job)
  }

  /// A stretch of draining ended: no job runs until the next ``next(previousStepSuspendedAt:ranInActorJob:)``.
  mutating func endStretch() { runningTask = nil }

  /// Gives the run up while its running job holds the drain thread for good (the watchdog):
  /// quarantines it as ``quarantineAll()`` does, and the drain, if its job ever returns, stops at
  /// once (``Step/abandoned``).
  mutating func abandonBlockedJob() -> AbandonAction {
    guard phase == .running, let task = runningTask else { return .none }
    quarantineAll()
    return .reportBlocked(blockedTask: task)
  }

  /// How many actor jobs (jobs of no task, off the main actor) the quarantine holds.
  var heldActorJobCount: Int { quarantine.count { $0.isActorJob } }

  /// Takes the first actor job out of the quarantine, to be run so that its actor is free again.
  mutating func takeHeldActorJob() -> Job? {
    guard let index = quarantine.firstIndex(where: { $0.isActorJob }) else { return nil }
    return quarantine.remove(at: index)
  }
}
