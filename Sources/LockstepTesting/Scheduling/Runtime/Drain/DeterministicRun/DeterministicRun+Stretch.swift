import Dispatch
import LockstepInterposition

/// A stretch of draining: the run's jobs, one at a time on this thread, until the run ends or the
/// stretch pauses (``DrainPause``); the drain loop (`DrainLoop.swift`) says where the next goes on.
extension DeterministicRun {
  /// How a stretch of draining ended.
  enum Stop {
    case finished, timedOut, tooManySteps, stoppedBeforeCrash, stopped, quarantined, abandoned
    case paused(DrainPause)
    /// This helper thread's turn ended: another thread drains the run now (``ParkedJobs``).
    case retired
  }

  /// Runs the run's jobs on this thread until the body has finished and no job is ready, or
  /// until nothing can make progress; it pauses between two jobs (``DrainPause``) when its
  /// `budget` has passed, when the next job needs the main actor and `lease` is `nil`, when the
  /// next job is no main-actor job and the stretch holds the main actor `onlyMainActorJobs` (in an
  /// exploration), or when it must wait for outside jobs while holding the main actor. A later
  /// call, on any thread, goes on from there: the drain loop (`DrainLoop.swift`) decides where,
  /// from ``DrainTable``.
  func drain(
    until budget: ContinuousClock.Instant?, holding lease: borrowing MainActorLease?,
    onlyMainActorJobs: Bool = false
  ) -> DrainStretch {
    let stretch = drainStretch(until: budget, holding: lease, onlyMainActorJobs: onlyMainActorJobs)
    // The run is over: a thread parked in it goes on now, the last to touch the run's fields.
    if case .ended = stretch { handOnRunOver() }
    return stretch
  }

  private func drainStretch(
    until budget: ContinuousClock.Instant?, holding lease: borrowing MainActorLease?,
    onlyMainActorJobs: Bool
  ) -> DrainStretch {
    if !progress.started {
      progress.started = true
      deadline = RealTime.now + FailureBoundScale.scaled(timeout)
      ActiveRuns.add(self)
    }
    // The budget as the time since the epoch the job starts are counted from: compared after
    // every job.
    let limit = budget.map { RealTime.epoch.duration(to: $0) }
    // Only an exploration leaves the main actor for other jobs, so that its choices at locks do
    // not depend on where a time budget ran out; a plain run keeps it, which costs no hand-off.
    let onlyMainActorJobs = onlyMainActorJobs && state.withLock { $0.ready.isPicked }
    let stop = asDrainThread {
      runJobs(budget: limit, holding: lease, onlyMainActorJobs: onlyMainActorJobs)
    }
    // No job holds the thread from here to the next stretch (a report may take a while): the
    // watchdog must not count it as blocked. A finished run is marked over by `finish()`; a job
    // chosen and held for the next stretch stays the running one.
    switch stop {
    case .finished, .retired: break
    default: if progress.heldJob == nil { state.withLock { $0.endStretch() } }
    }
    switch stop {
    case .retired: return .retired
    case .paused(let pause): return .paused(pause)
    case .finished: return .ended(finish())
    case .timedOut:
      let tasks = unfinishedTasks()
      return .ended(quarantine { .timedOut($0, tasks: tasks) })
    case .tooManySteps:
      let tasks = unfinishedTasks()
      return .ended(quarantine { .tooManySteps($0, tasks: tasks) })
    case .stoppedBeforeCrash:
      let tasks = unfinishedTasks()
      return .ended(quarantine { .stoppedBeforeCrash($0, tasks: tasks) })
    case .stopped: return .ended(quarantine { _ in .realClockSleep(makeRealClockSleep()) })
    case .abandoned:
      // The watchdog failed the run while a job held this thread; that job has returned now, and
      // the actor jobs it left are run as a quarantine runs them.
      releaseActorsLeftByTheBlockedJob()
      let abandoned = sidelines.withLock { $0.abandonedOutcome }
      return .ended(abandoned ?? .timedOut(state.withLock { $0.trace }, tasks: []))
    case .quarantined: return .ended(quarantine { _ in .deadlock(progress.report!) })
    }
  }

  /// Runs `body` as this run's drain thread: jobs enqueued, tasks created and main-queue blocks
  /// posted on this thread go to the run.
  func asDrainThread<T>(_ body: () -> T) -> T {
    drainerTaskID = RuntimeHooks.currentTaskID()
    // No job holds a lock of the runtime as a stretch begins (a lock is let go in the job that
    // took it): a count the thread kept from other code starts again at zero.
    lockstep_locks_job_starts()
    _ = ActorClaims.installed
    let (context, fields) = drainContext()
    return RunContext.with(context, fields, body)
  }

  /// This thread's run context while it drains the run: the run it drains, whose jobs' switches to
  /// default actors claim them (``ActorClaims``); the run told of the tasks it creates and of its
  /// stand-ins' calls, where ``TaskCreationHook`` and ``MainQueueHandOff`` are in effect; the crash
  /// trail a crash writes, exploring.
  private func drainContext() -> (lockstep_run_context, lockstep_run_context_fields) {
    let run = RunContext.naming(self)
    var context = lockstep_run_context()
    var fields: lockstep_run_context_fields = [.drained_run, .claim_run]
    context.drained_run = run
    context.claim_run = run
    if TaskCreationHook.isInEffect {
      fields.insert(.creation_run)
      context.creation_run = run
    }
    if MainQueueHandOff.isInEffect {
      fields.insert(.run)
      context.run = run
    }
    if let crashTrail {
      fields.insert(.crash_trail)
      context.crash_trail = UnsafeMutableRawPointer(crashTrail.address)
    }
    return (context, fields)
  }

  /// Runs one job of the run on this thread, reading the run's clocks at `now`; a main-actor job
  /// only with `lease`.
  func runJob(_ job: ScheduledJob, now: Int64, holding lease: borrowing MainActorLease?) {
    inJob = true
    // The tasks an actor's job runs are seen by the executor switches they make in it.
    let isActorJob = job.isActorJob
    if isActorJob { lockstep_task_switch_set_record(switchRecord) }
    if let clocks {
      clocks.reading(at: now) { RuntimeHooks.run(job, holding: lease) }
    } else {
      RuntimeHooks.run(job, holding: lease)
    }
    if isActorJob { lockstep_task_switch_set_record(nil) }
    inJob = false
  }

  /// After an actor's job, records where each task of the run that switched executors in it was
  /// left: the tasks it ran, each once, in order. One look under the run's lock, which also keeps
  /// the tasks alive while their few words are read; nothing allocated.
  private func noteTasksOfActorJob() {
    let count = Int(switchRecord.pointee.count)
    guard count > 0 else { return }
    switchRecord.pointee.count = 0
    let kept = min(count, Int(lockstep_task_switch_record_capacity))
    withUnsafeBytes(of: &switchRecord.pointee.task_ids) { bytes in
      let ids = bytes.assumingMemoryBound(to: UInt64.self).prefix(kept)
      state.withLock { state in
        var previous: UInt64 = 0
        for id in ids where id != previous {
          // A task switches in and out: the same id twice in a row is looked up once.
          previous = id
          guard let (task, object) = state.taskToRecord(switchingWithID: id),
            let pointer = UnsafeRawPointer(bitPattern: object)
          else { continue }
          state.recordRanInActorJob(
            SchedulerTrace.RanTask(task: task, site: SuspendedTaskStacks.site(ofTask: pointer)))
        }
      }
    }
  }

  /// Runs the chosen job, of step `step`, on this thread; returns why draining stops after it, if
  /// it does.
  private func run(
    _ job: ScheduledJob, needsName: Bool, isKept: Bool, now: Int64, step: Int,
    budget: Duration?, holding lease: borrowing MainActorLease?
  ) -> Stop? {
    runningTaskID = job.taskID
    runningNameChecked = !needsName
    // Between jobs this thread reads the real clocks.
    jobStartSinceEpoch = RealTime.sinceEpoch
    crashTrail?.record(step: step)
    runJob(job, now: now, holding: lease)
    crashTrail?.record(step: 0)
    runningTaskID = nil
    if isKept { progress.suspendedAt = SuspendedTaskStacks.site(of: job.job) }
    if job.isActorJob { noteTasksOfActorJob() }
    return afterJob(budget: budget)
  }

  /// Counts the job that just returned; returns why draining stops after it, if it does.
  func afterJob(budget: Duration?) -> Stop? {
    progress.gaveMainActorBack = false
    progress.steps += 1
    // A job that parked and was resumed: the thread that resumed it waits for its turn back.
    if let resumer {
      self.resumer = nil
      if drainsAsHelper {
        resumer.hand(.drainOn)
        return .retired
      }
      resumer.hand(.retire)
    }
    if progress.steps >= stepLimit { return .tooManySteps }
    if let budget, jobStartSinceEpoch >= budget { return .paused(.budgetSpent) }
    progress.jobsSinceCheck += 1
    if progress.jobsSinceCheck >= 4096 {
      progress.jobsSinceCheck = 0
      if ContinuousClock.now >= deadline { return .timedOut }
    }
    return nil
  }

  /// Reads the clock between jobs, for the run's bounds: there this thread reads real time (the
  /// run's clocks are set only around each job).
  func runJobs(
    budget: Duration?, holding lease: borrowing MainActorLease?, onlyMainActorJobs: Bool
  ) -> Stop {
    let deadline = self.deadline
    let holdingMainActor: Bool
    switch lease {
    case .some: holdingMainActor = true
    case .none: holdingMainActor = false
    }
    // Why this stretch may not run `job`: it needs the main actor, which the stretch lacks, or it
    // must run without the main actor, which the stretch holds for main-actor jobs only.
    func pause(before job: ScheduledJob) -> DrainPause? {
      if job.isMainActor { return holdingMainActor ? nil : .needsMainActor }
      return holdingMainActor && onlyMainActorJobs ? .leaveMainActor : nil
    }
    while true {
      if let held = progress.heldJob {
        if let pause = pause(before: held.job) { return .paused(pause) }
        progress.heldJob = nil
        let stop = run(
          held.job, needsName: held.needsName, isKept: held.isKept, now: held.now, step: held.step,
          budget: budget, holding: lease)
        if let stop { return recordingSuspension(stop) }
        continue
      }
      // A replay up to a crash stops before the step that crashed, if the run would run it.
      if let stopBeforeStep, state.withLock({ $0.wouldRun(step: stopBeforeStep) }) {
        return recordingSuspension(.stoppedBeforeCrash)
      }
      let site = progress.suspendedAt
      progress.suspendedAt = .none
      let (step, needsName, isKept, now, number) = state.withLock {
        (
          $0.next(previousStepSuspendedAt: site), $0.runningTaskNeedsName, $0.runningTaskIsKept,
          $0.nowNanoseconds, $0.trace.steps.count
        )
      }
      switch step {
      case .run(let job):
        if let pause = pause(before: job) {
          progress.heldJob = (job, needsName, isKept, now, number)
          return .paused(pause)
        }
        let stop = run(
          job, needsName: needsName, isKept: isKept, now: now, step: number, budget: budget,
          holding: lease)
        if let stop { return recordingSuspension(stop) }
      case .resume(let wait):
        crashTrail?.record(step: number)
        if let stop = resume(wait) { return stop }
        crashTrail?.record(step: 0)
      case .fire(let action):
        // Outside work that reads the run's clocks (XCTest's waiter) sees the time the timer fires at.
        clocks?.set(elapsed: state.withLock { $0.nowNanoseconds })
        action()
      case .finished:
        return .finished
      case .stopped:
        return .stopped
      case .abandoned:
        return .abandoned
      case .waitingForOutsideWork:
        // Waits in real time, on a thread Lockstep owns, never holding the main actor: the
        // outside work may need a thread of the pool, or the main queue.
        if budget != nil || holdingMainActor { return .paused(.leaveMainActor) }
        if waitForOutsideWork(until: deadline) { continue }
        state.withLock { $0.stopWaiting() }
        return .timedOut
      case .stuck:
        // Outside jobs may need the main actor: never wait for them holding it. A block already
        // queued on the main queue may be what the run waits for: let it run first, once.
        if holdingMainActor && gracePeriod > .zero { return .paused(.leaveMainActor) }
        // A parked thread that holds the main actor would never let it go.
        if !progress.gaveMainActorBack && !state.withLock({ $0.parked.holdsMainActor }) {
          progress.gaveMainActorBack = true
          return .paused(.yieldMainActor)
        }
        if waitForOutsideJob(until: deadline) { continue }
        state.withLock { $0.stopWaiting() }
        if RealTime.now >= deadline && gracePeriod > .zero { return .timedOut }
        if progress.report == nil {
          // Cancel the body once: cancellable waits (Lockstep's primitives, sleeps) unwind.
          let report = makeReport(quarantined: false)
          progress.report = report
          // Kept for the crash handler until the caller has the report: unwinding runs the code
          // under test, which may trap.
          CrashReport.holdRunReport(report.description, for: self)
          state.withLock { $0.markDeadlockReported() }
          cancelBody?()
          continue
        }
        // Where the tasks were stuck when the deadlock was found, not where the unwind left them.
        progress.report = makeReport(quarantined: true, found: progress.report)
        return .quarantined
      }
    }
  }

  /// `stop`, once the trace has where the last job left its task.
  private func recordingSuspension(_ stop: Stop) -> Stop {
    // A helper that handed the drain back touches its fields no more: the thread it handed them to
    // drains on from here.
    if case .retired = stop { return stop }
    let site = progress.suspendedAt
    progress.suspendedAt = .none
    if !site.isNone { state.withLock { $0.recordSuspension(site) } }
    return stop
  }

  /// Waits until the outside work in flight returns or a job arrives, or until `deadline`;
  /// `false` when the deadline passed with the work still in flight.
  private func waitForOutsideWork(until deadline: ContinuousClock.Instant) -> Bool {
    let remaining = RealTime.now.duration(to: deadline)
    if remaining > .zero {
      let nanoseconds = Int(min(remaining, .seconds(86_400)).wholeNanoseconds)
      if wakeup.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { return true }
    }
    return state.withLock { $0.mayGoOnAfterOutsideWork }
  }

  private func waitForOutsideJob(until deadline: ContinuousClock.Instant) -> Bool {
    guard gracePeriod > .zero else { return false }
    let now = RealTime.now
    let limit = min(deadline, now + gracePeriod)
    let remaining = now.duration(to: limit)
    guard remaining > .zero else { return false }
    let nanoseconds = Int(remaining.wholeNanoseconds)
    if wakeup.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { return true }
    // Timed out; a job may have arrived just now.
    return state.withLock { $0.readyCount > 0 }
  }
}
