/// Choosing the next step: ``next(previousStepSuspendedAt:ranInActorJob:)`` asks its rungs in
/// order, and the first that has a step gives it.
extension RunState {
  /// What the drain loop does next.
  enum Step {
    case run(Job)
    /// A job parked in a blocking wait resumes on its own thread (``ParkedWaits``).
    case resume(ParkedWaits.Wait)
    /// A timer elapsed in virtual time: call its action (outside the lock).
    case fire(@Sendable () -> Void)
    /// The body finished and no job is ready.
    case finished
    /// The body has not finished, no job is ready and nobody sleeps.
    case stuck
    /// No job is ready, and work the run's jobs handed to other threads has not returned
    /// (``OutsideWork``): the run waits for it in real time, keeping virtual time still.
    case waitingForOutsideWork
    /// A task sleeps until deadlines computed from the real clock (``realClockSleeper``): the run
    /// cannot go on in virtual time.
    case stopped
    /// The watchdog gave the run up while a job held its thread (``abandonBlockedJob()``).
    case abandoned
  }

  /// Picks the next step, after recording where the previous one left its task
  /// (``recordAfterStep(_:ranInActorJob:)``); a job or a resumed wait is recorded as a step.
  mutating func next(
    previousStepSuspendedAt site: SuspensionSite = .none, ranInActorJob ran: [SchedulerTrace.RanTask] = []
  ) -> Step {
    recordAfterStep(site, ranInActorJob: ran)
    // The first rungs are asked only when they may have a step: an empty `Step?` is destroyed
    // through the type's metadata, about 70 instructions a rung on every step.
    if isGivenUp, let step = nextIfGivenUp() { return step }
    if !parked.isEmpty, let step = nextParkedComingBack() { return step }
    if outsideWork.hasWokenWork, let step = nextWokenOutsideWork() { return step }
    if case .some = chosenAtLockPoint, let step = nextChosenAtLockPoint() { return step }
    if let step = nextReadyJob() { return step }
    // A parked job is unfinished work, as the body is.
    guard !bodyFinished || !parked.isEmpty else { return idle(.finished) }
    if let step = nextWaitForTimeHolders() { return step }
    if let step = nextTimerOrSleeper() { return step }
    return nothingToRun()
  }

  // MARK: The rungs, in the order `next` asks them

  /// Whether the run was given up (``nextIfGivenUp()``).
  var isGivenUp: Bool { phase == .quarantined || realClockSleeper != nil }

  /// A quarantined run is abandoned; a run whose task sleeps until real-clock deadlines stops.
  mutating func nextIfGivenUp() -> Step? {
    if phase == .quarantined { return idle(.abandoned) }
    if realClockSleeper != nil { return idle(.stopped) }
    return nil
  }

  /// A parked job whose thread is back resumes first; one the run woke is waited for, so that it
  /// resumes at the same point in every run of a seed.
  mutating func nextParkedComingBack() -> Step? {
    guard !parked.isEmpty else { return nil }
    if let wait = parked.takeReturned() { return resume(wait) }
    if parked.hasWokenWait { return drainWaits(.waitingForOutsideWork) }
    return nil
  }

  /// XCTest's waiter, woken by the run: let go between two steps, then waited for, as a woken
  /// parked job is.
  mutating func nextWokenOutsideWork() -> Step? {
    guard outsideWork.hasWokenWork else { return nil }
    if !outsideWorkReleases.isEmpty { return .fire(outsideWorkReleases.removeFirst()) }
    return drainWaits(.waitingForOutsideWork)
  }

  /// What an exploration's picker chose at a lock point, where the job that reached it stopped,
  /// runs.
  mutating func nextChosenAtLockPoint() -> Step? {
    guard let chosen = chosenAtLockPoint.take() else { return nil }
    switch chosen {
    case .job(let entry): return start(entry, woke: false)
    case .parked(let id):
      guard let wait = parked.remove(id) else { return nil }
      return resume(wait)
    }
  }

  /// A ready job. A job stopped at a lock resumes when picked among them; in a run that is not
  /// explored, first.
  mutating func nextReadyJob() -> Step? {
    guard !parked.isEmpty && parked.hasRunnableLockWait else {
      guard let entry = takeReady() else { return nil }
      return start(entry, woke: false)
    }
    let runnable = parked.runnableLockWaits
    guard ready.isPicked && ready.eligibleCount > 0 else {
      guard let wait = parked.remove(runnable[0].id) else { return nil }
      return resume(wait)
    }
    var entry: RunEntry<Job>?
    switch ready.pick(
      leading: [], trailing: runnable.map(\.task), previous: trace.steps.last?.task ?? 0,
      step: trace.steps.count)
    {
    case .job(let picked): entry = picked
    case .trailing(let index): if let wait = parked.remove(runnable[index].id) { return resume(wait) }
    case .leading: break
    }
    if let picked = entry, deferIfMainActorParked(picked) { entry = takeReady() }
    guard let entry else { return nil }
    return start(entry, woke: false)
  }

  /// With no job to run and work unfinished: virtual time stands still, and nothing is stuck, while
  /// outside work or a parked wait on something from outside the run goes on.
  mutating func nextWaitForTimeHolders() -> Step? {
    guard outsideWork.holdsTime || parked.holdsTime else { return nil }
    return drainWaits(.waitingForOutsideWork)
  }

  /// With no job to run and work unfinished: a due timer fires, or virtual time moves to the
  /// earliest sleeper, whose job runs.
  mutating func nextTimerOrSleeper() -> Step? {
    // While a reported deadlock unwinds, virtual time stands still for sleepers: code that
    // sleeps once cancelled (a shutdown timeout, say) must not see time run out because the
    // run gave up; such a sleep stays unfinished, and the run is quarantined.
    var sleeper = time.nextDeadline
    if timers.deadlockReported, let deadline = sleeper, deadline > time.now { sleeper = nil }
    if let (deadline, action) = timers.takeDue(nextSleeper: sleeper) {
      time.advance(to: deadline)
      return .fire(action)
    }
    guard sleeper != nil, var entry = time.advanceToNext() else { return nil }
    if deferIfMainActorParked(entry) {
      guard let other = takeReady() else { return nil }
      entry = other
    }
    return start(entry, woke: true)
  }

  /// Nothing can run: the run is stuck, unless outside work is in flight, which it waits for.
  mutating func nothingToRun() -> Step {
    drainWaits(outsideWork.isEmpty ? .stuck : .waitingForOutsideWork)
  }

  // MARK: What the rungs share

  /// No job runs: `step` says why.
  private mutating func idle(_ step: Step) -> Step {
    runningTask = nil
    return step
  }

  /// No job runs, and the drain waits for another thread to wake it: `step` says for what.
  private mutating func drainWaits(_ step: Step) -> Step {
    runningTask = nil
    drainWaiting = true
    return step
  }

  /// Hands out `entry`'s job as the next step; `woke` when it woke from a sleep.
  @inline(__always)
  private mutating func start(_ entry: RunEntry<Job>, woke: Bool) -> Step {
    let task = entry.task
    if task != 0 {
      if woke { tasks[task].lastSleepEnded = true }
      tasks[task].jobsRun += 1
      tasks[task].lastStep = trace.steps.count
      tasks[task].lastOnMainActor = entry.job.isMainActor
      tasks[task].waitingOn = nil
    }
    runningTask = task
    // An `async let` task is not kept (its parent's frame holds it), but it can be read right
    // after its own job.
    runningTaskIsKept =
      task != 0 && (tasks[task].object != nil || entry.job.taskID == tasks[task].taskID)
    runningTaskNeedsName = task != 0 && entry.job.taskID.map { tasks.needsName(task, id: $0) } ?? false
    trace.steps.append(
      SchedulerTrace.Step(
        task: task == 0 ? nil : task, isMainActor: entry.job.isMainActor, time: time.now,
        wokeFromSleep: woke, enqueuedAt: entry.enqueuedAt,
        kindOfJob: task == 0 ? entry.job.kindOfJob : .task))
    return .run(entry.job)
  }

  /// Takes the next ready job; main-actor jobs are set aside while a parked thread holds the main
  /// actor.
  @inline(__always)
  private mutating func takeReady() -> RunEntry<Job>? {
    while let entry = ready.next(previous: trace.steps.last?.task ?? 0, step: trace.steps.count) {
      if !deferIfMainActorParked(entry) { return entry }
    }
    return nil
  }

  /// Sets `entry` aside if it is a main-actor job and a parked thread holds the main actor.
  private mutating func deferIfMainActorParked(_ entry: RunEntry<Job>) -> Bool {
    guard entry.job.isMainActor, !parked.isEmpty, parked.holdsMainActor else { return false }
    mainActorDeferred.append(entry)
    return true
  }

  /// Hands the turn to the parked job of `wait`: a step of its task.
  private mutating func resume(_ wait: ParkedWaits.Wait) -> Step {
    if !mainActorDeferred.isEmpty && !parked.holdsMainActor {
      for entry in mainActorDeferred { ready.append(entry) }
      mainActorDeferred.removeAll()
    }
    if wait.task != 0 {
      tasks[wait.task].jobsRun += 1
      tasks[wait.task].lastStep = trace.steps.count
    }
    if wait.waitingTask != 0 { tasks[wait.waitingTask].waitingOn = nil }
    runningTask = wait.task
    runningTaskIsKept = false
    runningTaskNeedsName = false
    trace.steps.append(
      SchedulerTrace.Step(
        task: wait.task == 0 ? nil : wait.task, isMainActor: false, time: time.now,
        wokeFromSleep: false, enqueuedAt: Int32(clamping: wait.step),
        kindOfJob: wait.task == 0 ? .actor : .task))
    return .resume(wait)
  }
}
