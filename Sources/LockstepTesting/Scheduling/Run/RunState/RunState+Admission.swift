/// Admission: a job or a sleep handed to the run is stored, forwarded or held, as ``JobRouter``
/// routes it.
extension RunState {
  /// What the shell does with a job handed to the run.
  enum AdmitAction: Equatable {
    /// Nothing more: the run stored the job.
    case stored
    /// The run stored the job, and its drain thread waits for one: wake it.
    case wakeDrain
    /// The run is over: forward the job to the platform executor.
    case forward
    /// The run is quarantined: it holds the job, which never runs.
    case held
  }

  /// Takes a ready job, as ``JobRouter`` routes it. `enqueuer` gives the task whose work the
  /// drain thread runs as it enqueues the job, if any; it is asked only for a job of a task the
  /// run does not know yet.
  mutating func enqueue(
    _ job: Job, enqueuer: () -> UInt64? = { nil }, fromOtherThread: Bool = false
  ) -> AdmitAction {
    let action = admit(job, actingTask: enqueuer) { state, entry in state.ready.append(entry) }
    if fromOtherThread && (action == .stored || action == .wakeDrain) { jobsFromOtherThreads += 1 }
    return action
  }

  /// A sleep of the running task: `job` becomes ready after the sleep's delay of virtual time.
  /// The job (the runtime's wake-up task) is credited to the task that sleeps, `sleeper` (the
  /// runtime id of the current task) or the task of the running job.
  mutating func schedule(_ job: Job, sleep: SleepRequest, sleeper: UInt64?) -> AdmitAction {
    // A task from outside sleeps in real time.
    if JobRouter.route(.sleep(task: sleeper), in: self) == .platform { return .forward }
    let sleeperTask = eventTask(sleeper)
    if let sleeperTask, sleeperTask != 0, let id = job.taskID {
      tasks.alias(id, to: sleeperTask)
    }
    return admit(job) { state, entry in
      if entry.task != 0 && state.runningTask != nil {
        let wake = state.time.now + sleep.delay
        state.tasks[entry.task].waitingOn = .sleep(until: wake)
        // On the step that is running: the one in which the task went to sleep.
        state.trace.events.append(
          SchedulerTrace.Event(
            step: state.trace.steps.count - 1, task: entry.task, kind: .sleeps(wake)))
        state.checkRealDeadline(sleep.real, ofTask: entry.task)
      }
      state.time.schedule(entry, after: sleep.delay)
    }
  }

  /// Stops the run when task `task` sleeps until a deadline computed from a previous real-clock
  /// deadline (see ``RealDeadline/repeatsRealDeadline(after:)``): such code re-sleeps forever in
  /// virtual time, because the real clock it reads never catches up.
  private mutating func checkRealDeadline(_ real: RealDeadline?, ofTask task: Int) {
    guard let real else { return }
    if tasks[task].lastSleepEnded, let previous = tasks[task].lastRealSleep,
      real.repeatsRealDeadline(after: previous), realClockSleeper == nil
    {
      realClockSleeper = task
    }
    tasks[task].lastRealSleep = real
    tasks[task].lastSleepEnded = false
  }

  /// Routes `job`, and stores it with `store` when it is the run's.
  private mutating func admit(
    _ job: Job, actingTask: () -> UInt64? = { nil }, _ store: (inout Self, RunEntry<Job>) -> Void
  ) -> AdmitAction {
    let task: Int
    switch JobRouter.route(.job(task: job.taskID), in: self, actingTask: actingTask) {
    case .platform: return .forward
    case .held:
      quarantine.append(job)
      return .held
    case .run(let known): task = known
    case .runRegistering:
      // `route` registers only a job of a task.
      task = tasks.number(registering: job.taskID ?? 0)
      tasks[task].object = job.retainTask()
    }
    let enqueuedAt = runningTask == nil ? -1 : Int32(clamping: trace.steps.count - 1)
    if !unseenCreations.isEmpty, let id = job.taskID, let creation = unseenCreations.removeValue(forKey: id) {
      apply(creation, toTask: task, id: id)
    }
    store(&self, RunEntry(job: job, task: task, enqueuedAt: enqueuedAt))
    defer { drainWaiting = false }
    return drainWaiting ? .wakeDrain : .stored
  }
}
