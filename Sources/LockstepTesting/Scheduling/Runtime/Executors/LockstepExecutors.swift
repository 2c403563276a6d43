// The executors Lockstep installs for the whole process on the first deterministic run (see
// RuntimeHooks.swift for how they plug into the runtime). Every job that belongs to a run goes to
// the run; every other job goes on to the platform's executors, unchanged.
//
// This is the one file that imports the runtime's experimental executor SPI, and only with the
// compilers whose interface it was checked against (Swift 6.3): the SPI may change in any
// release, and a change must cost users of a newer compiler the scheduler (``ExecutorAPI``
// says why), not the build of the package.
#if compiler(>=6.3) && compiler(<6.4)
  @_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

  /// What the rest of Lockstep uses of the executor API: installing the executors, running a
  /// run's job on them, handing a job back to the platform's.
  enum ExecutorAPI {
    /// Why this OS cannot run the scheduler; `nil` where it can.
    static var unavailability: String? {
      if #available(LockstepCustomExecutors , *) { return nil }
      return "custom executors need macOS/iOS/tvOS/watchOS/visionOS 26.4 or later"
    }

    /// Makes Lockstep's executors the process's default and main executors.
    static func installExecutors() {
      if #available(LockstepCustomExecutors , *) {
        _createExecutors(factory: LockstepExecutorFactory.self)
      }
    }

    /// Runs one job of a run on the current (drain) thread.
    static func run(_ job: ScheduledJob) {
      if #available(LockstepCustomExecutors , *) {
        let taskExecutor = Installed.defaultExecutor.asUnownedTaskExecutor()
        if job.isMainActor {
          ExecutorJob(job.job).runSynchronously(
            isolatedTo: Installed.mainExecutor.asUnownedSerialExecutor(),
            taskExecutor: taskExecutor)
        } else {
          ExecutorJob(job.job).runSynchronously(on: taskExecutor)
        }
        return
      }
      fatalError("a deterministic run started without installed executors")
    }

    /// Hands a job that does not belong to a run (any more) to the platform executors, after
    /// `delay` of real time.
    static func forward(_ job: ScheduledJob, after delay: Duration) {
      if #available(LockstepCustomExecutors , *) {
        if job.isMainActor {
          Installed.mainExecutor.platform.enqueue(ExecutorJob(job.job))
        } else {
          Installed.defaultExecutor.forward(job.job, after: delay)
        }
      }
    }
  }

  @available(LockstepCustomExecutors, *)
  func scheduledJob(_ job: UnownedJob, isMainActor: Bool) -> ScheduledJob {
    let isTask = ExecutorJob(job).kind.rawValue == ExecutorJob.Kind.task.rawValue
    return ScheduledJob(
      job: job, isMainActor: isMainActor, taskID: isTask ? runtimeJobTaskID(job) : nil)
  }

  /// Hands a ready job to the run it belongs to; `false` when it belongs to none.
  @available(LockstepCustomExecutors, *)
  private func enqueueInRun(_ job: UnownedJob, isMainActor: Bool) -> Bool {
    let scheduled = scheduledJob(job, isMainActor: isMainActor)
    guard let run = ActiveRuns.runToAsk(.job(task: scheduled.taskID)) else { return false }
    run.noteRunningTaskNameIfDraining()
    run.enqueue(scheduled)
    return true
  }

  /// Puts a sleep of the current task in its run's virtual time, as ``JobRouter`` routes it;
  /// `false` when it belongs to no run. `drained` is the run this thread drains.
  @available(LockstepCustomExecutors, *)
  private func scheduleInRun(
    _ job: UnownedJob, drained run: DeterministicRun?,
    sleep: (_ jobStart: ContinuousClock.Instant) -> SleepRequest
  ) -> Bool {
    guard let run else { return false }
    let sleeper = RuntimeHooks.currentTaskID()
    // The router's first rule without a second thread-local read: the drained run is asked.
    let drained = (run: run, bodyTaskID: run.bodyTaskID)
    guard case .run = JobRouter.runToAsk(.sleep(task: sleeper), drained: drained, owner: { _ in nil })
    else { return false }
    let request = sleep(run.jobStart)
    run.noteRunningTaskNameIfDraining()
    run.schedule(scheduledJob(job, isMainActor: false), sleep: request, sleeper: sleeper)
    return true
  }

  @available(LockstepCustomExecutors, *)
  enum Installed {
    static let defaultExecutor = LockstepDefaultExecutor(platform: Task.defaultExecutor)
    static let mainExecutor = LockstepMainExecutor(platform: MainActor.executor)
  }

  @available(LockstepCustomExecutors, *)
  struct LockstepExecutorFactory: ExecutorFactory {
    static var mainExecutor: any MainExecutor { Installed.mainExecutor }
    static var defaultExecutor: any TaskExecutor { Installed.defaultExecutor }
  }

  /// The process's default executor while Lockstep is installed, and the task executor the drain
  /// loop runs jobs on.
  @available(LockstepCustomExecutors, *)
  final class LockstepDefaultExecutor: TaskExecutor, SchedulingExecutor,
    @unchecked Sendable
  {
    let platform: any TaskExecutor

    init(platform: any TaskExecutor) { self.platform = platform }

    func enqueue(_ job: consuming ExecutorJob) {
      let job = UnownedJob(job)
      if !enqueueInRun(job, isMainActor: false) { platform.enqueue(ExecutorJob(job)) }
    }

    func enqueue<C: Clock>(
      _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
      let run = DrainingRun.current
      // A run that reads virtual now takes the deadline as it is. Otherwise, read the real clock
      // first: every instruction before makes the sleep look shorter.
      let virtual = run?.clocks != nil
      let now = virtual ? nil : realNow(for: C.self)
      let job = UnownedJob(job)
      if scheduleInRun(
        job, drained: run,
        sleep: {
          virtual
            ? SleepRequest(until: instant, onVirtual: clock)
            : sleepRequest(until: instant, clock: clock, now: now, jobStart: $0)
        })
      {
        return
      } else if let scheduling = platform as? any SchedulingExecutor {
        scheduling.enqueue(ExecutorJob(job), at: instant, tolerance: tolerance, clock: clock)
      } else {
        platform.enqueue(ExecutorJob(job))
      }
    }

    func enqueue<C: Clock>(
      _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
    ) {
      let job = UnownedJob(job)
      if scheduleInRun(
        job, drained: DrainingRun.current, sleep: { _ in SleepRequest(delay: delay as? Duration ?? .zero) })
      {
        return
      } else if let scheduling = platform as? any SchedulingExecutor {
        scheduling.enqueue(ExecutorJob(job), after: delay, tolerance: tolerance, clock: clock)
      } else {
        platform.enqueue(ExecutorJob(job))
      }
    }

    /// Hands a job to the platform executor, after `delay` of real time.
    func forward(_ job: UnownedJob, after delay: Duration) {
      if delay > .zero, let scheduling = platform as? any SchedulingExecutor {
        scheduling.enqueue(ExecutorJob(job), after: delay, clock: ContinuousClock())
      } else {
        platform.enqueue(ExecutorJob(job))
      }
    }
  }

  /// The process's main executor while Lockstep is installed: main-actor jobs of a run go to the
  /// run, everything else to the platform's main executor.
  @available(LockstepCustomExecutors, *)
  final class LockstepMainExecutor: MainExecutor, @unchecked Sendable {
    let platform: any MainExecutor

    init(platform: any MainExecutor) { self.platform = platform }

    func enqueue(_ job: consuming ExecutorJob) {
      let job = UnownedJob(job)
      if !enqueueInRun(job, isMainActor: true) { platform.enqueue(ExecutorJob(job)) }
    }

    func run() throws { try platform.run() }
    func stop() { platform.stop() }
    var isMainExecutor: Bool { true }
    func checkIsolated() { platform.checkIsolated() }
    func isIsolatingCurrentContext() -> Bool? { platform.isIsolatingCurrentContext() }
  }
#else
  /// Without the executor API Lockstep was checked against, the scheduler is unavailable.
  enum ExecutorAPI {
    static var unavailability: String? {
      #if compiler(<6.3)
        "it needs the Swift 6.3 compiler and runtime (custom executor factories and "
          + "SchedulingExecutor); this is an older compiler"
      #else
        "this compiler is newer than Swift 6.3, whose experimental executor API this version of "
          + "Lockstep was checked against; a later version of Lockstep supports it"
      #endif
    }
    static func installExecutors() {}
    static func run(_ job: ScheduledJob) {
      fatalError("a deterministic run started without installed executors")
    }
    static func forward(_ job: ScheduledJob, after delay: Duration) {}
  }
#endif
