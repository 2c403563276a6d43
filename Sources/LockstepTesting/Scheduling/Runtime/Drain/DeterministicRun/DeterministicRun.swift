import Dispatch
import LockstepInterposition

/// One deterministic run: the locking shell around ``RunState`` and the drain loop that runs its
/// jobs one at a time on the current thread.
final class DeterministicRun: @unchecked Sendable {
  let site: CallSite
  let gracePeriod: Duration
  let timeout: Duration
  /// The most jobs the run may execute before it is stopped.
  let stepLimit: Int
  /// The step (from 1) before which the run stops, when it replays a crash up to the step that
  /// crashed (``ExplorationStrategy/replayUpToCrash(_:atStep:)``); `nil` otherwise.
  let stopBeforeStep: Int?
  /// Where each step stores its number for the crash report (``CrashReport/Trail/record(step:)``):
  /// the trail of a schedule's exploration; `nil` for other runs.
  let crashTrail: CrashReport.Trail?
  let state: Locked<RunState<ScheduledJob>>
  /// What the run's jobs read as now; `nil` when they read the real clocks (``VirtualNow``).
  let clocks: RunClocks?
  private let wakeup = DispatchSemaphore(value: 0)
  /// Where the watchdog reports a run whose thread blocked: the test that started the run.
  let issueContext: IssueContext
  /// Cancels the body task; set before draining.
  var cancelBody: (@Sendable () -> Void)?
  // The drain thread's own fields below are read and written only by the thread draining the run
  // (invariant “One drain thread at a time” in CONTRIBUTING), and a drain moves between threads only
  // through a hand-off that orders the accesses (a continuation, a semaphore, a main-queue block).
  // The thread sanitizer checks that over the suite (`TSAN=1 scripts/stress.sh`, beside the
  // main-actor tests); the runtime's dynamic exclusivity checks are turned off for these fields
  // (a call on every access, several a job).

  /// The task whose job the drain thread is running. Drain thread only.
  @exclusivity(unchecked) private var runningTaskID: UInt64?
  /// Whether the drain thread is running a job (rather than firing a timer between two). Drain
  /// thread only.
  @exclusivity(unchecked) private var inJob = false
  /// The task that drains the run on this thread, if a task does (an inline drain): a job may
  /// still see it as the current task. Drain thread only.
  @exclusivity(unchecked) private var drainerTaskID: UInt64?
  /// Whether the running task's name was looked up already. Drain thread only.
  @exclusivity(unchecked) private var runningNameChecked = false
  /// The runtime id of the body's task, the run's first task; 0 until it is created. Task ids
  /// grow with every task the process creates, so a task with a smaller id existed before the run
  /// began: the test's own task, for example. Set before the run is drained, read by the drain
  /// thread.
  var bodyTaskID: UInt64 = 0
  /// When the running job started, in real time: without virtual now, sleeps of the job use it to
  /// recover their duration (see ``SleepRequest``). Drain thread only.
  @exclusivity(unchecked) private(set) var jobStart = RealTime.now
  /// The thread that handed this thread the turn to resume its parked job, waiting to have it
  /// back (``ParkedJobs``). Drain thread only.
  @exclusivity(unchecked) var resumer: BatonSlot?
  /// Whether this thread drains the run only while another's job is parked (a helper), not for
  /// the run's caller. Drain thread only.
  @exclusivity(unchecked) var drainsAsHelper = false
  /// The threads of the run's parked jobs, by wait id.
  let parkedThreads = Locked<[UInt64: ParkedThread]>([:])

  /// What a thread keeps of the drain thread's own fields while its job is parked, to have them
  /// back when it resumes.
  struct DrainerFields {
    fileprivate var runningTaskID: UInt64?
    fileprivate var inJob: Bool
    fileprivate var drainerTaskID: UInt64?
    fileprivate var runningNameChecked: Bool
    fileprivate var jobStart: ContinuousClock.Instant
    var resumer: BatonSlot?
    var drainsAsHelper: Bool
  }

  /// A helper thread's fields as it starts draining: no job runs.
  static let helperFields = DrainerFields(
    runningTaskID: nil, inJob: false, drainerTaskID: nil, runningNameChecked: false,
    jobStart: RealTime.now, resumer: nil, drainsAsHelper: true)

  /// The drain thread's own fields, as this thread left them. Drain thread only.
  var drainerFields: DrainerFields {
    get {
      DrainerFields(
        runningTaskID: runningTaskID, inJob: inJob, drainerTaskID: drainerTaskID,
        runningNameChecked: runningNameChecked, jobStart: jobStart, resumer: resumer,
        drainsAsHelper: drainsAsHelper)
    }
    set {
      runningTaskID = newValue.runningTaskID
      inJob = newValue.inJob
      drainerTaskID = newValue.drainerTaskID
      runningNameChecked = newValue.runningNameChecked
      jobStart = newValue.jobStart
      resumer = newValue.resumer
      drainsAsHelper = newValue.drainsAsHelper
    }
  }

  /// Whether this thread runs one of the run's jobs now (not Lockstep's code between two).
  var isInJob: Bool { DrainingRun.isCurrent(self) && inJob }

  /// A run whose ready jobs `order` orders; exploration may cancel the task at the
  /// `cancelAtWait`-th Lockstep wait, bound the run to `stepLimit` jobs, stop it before step
  /// `stopBeforeStep`, and have its steps recorded for the crash report. Its jobs read virtual now
  /// when `virtualNow` is true.
  init(
    order: ReadyJobs<ScheduledJob>.Order, cancelAtWait: Int? = nil, stepLimit: Int = .max,
    stopBeforeStep: Int? = nil, crashTrail: CrashReport.Trail? = nil,
    timeout: Duration, gracePeriod: Duration = .zero, site: CallSite,
    virtualNow: Bool = VirtualNow.isInEffect
  ) {
    issueContext = IssueContext.current()
    self.site = site
    self.timeout = timeout
    self.gracePeriod = gracePeriod
    self.stepLimit = stepLimit
    self.stopBeforeStep = stopBeforeStep
    self.crashTrail = crashTrail
    clocks = virtualNow ? RunClocks(wallStart: VirtualNow.startForRun) : nil
    state = Locked(RunState(order: order, cancelAtWait: cancelAtWait, readsVirtualNow: virtualNow))
    switchRecord.initialize(to: lockstep_task_switch_record())
  }

  deinit {
    clocks?.free()
    switchRecord.deallocate()
  }

  /// Where the executor switches of the running actor job are recorded (`TaskSwitch.c`).
  private let switchRecord = UnsafeMutablePointer<lockstep_task_switch_record>.allocate(capacity: 1)

  /// Takes a ready job (from any thread).
  func enqueue(_ job: ScheduledJob) {
    let fromOtherThread = !DrainingRun.isCurrent(self)
    admitted(
      job,
      state.withLock {
        $0.enqueue(job, enqueuer: taskRunningInJob, fromOtherThread: fromOtherThread)
      }, remaining: .zero)
    if fromOtherThread { OutsideWorkTracking.resumed(self) }
  }

  /// The task whose work a job of this run runs on this thread, if this is the drain thread in a
  /// job and that task is not the job's own: inside an actor's job, possibly a task from outside
  /// the run that waited for the actor.
  func taskRunningInJob() -> UInt64? {
    guard DrainingRun.isCurrent(self) else { return nil }
    return JobRouter.actingTask(
      current: RuntimeHooks.currentTaskID(), runningJob: runningTaskID, drainer: drainerTaskID,
      inJob: inJob)
  }

  /// Takes the sleep of `sleeper`, the task running on the drain thread: `job` becomes ready after
  /// the sleep's delay of virtual time.
  func schedule(_ job: ScheduledJob, sleep: SleepRequest, sleeper: UInt64?) {
    admitted(
      job, state.withLock { $0.schedule(job, sleep: sleep, sleeper: sleeper) }, remaining: sleep.delay)
  }

  private func admitted(
    _ job: ScheduledJob, _ action: RunState<ScheduledJob>.AdmitAction, remaining: Duration
  ) {
    switch action {
    case .stored, .held: break
    case .wakeDrain: wakeup.signal()
    case .forward: RuntimeHooks.forward(job, after: remaining)
    }
  }

  /// Called when the run receives a job: if this is the drain thread, remembers the name of the
  /// task whose job is running.
  func noteRunningTaskNameIfDraining() {
    guard DrainingRun.current === self, !runningNameChecked, let id = runningTaskID,
      // A task the job started inline (`Task.immediate`) may be the current task now: its name is
      // not the job's task's.
      RuntimeHooks.currentTaskID() == id
    else { return }
    recordNameIfMissing(forTask: id)
  }

  /// Records the current task's name as the name of task `id`, unless the run looked it up
  /// already. For the running job's task, the drain loop knows that without asking the state.
  private func recordNameIfMissing(forTask id: UInt64) {
    if id == runningTaskID {
      guard !runningNameChecked else { return }
      runningNameChecked = true
    } else if !state.withLock({ $0.needsName(forTask: id) }) {
      return
    }
    state.withLock { $0.recordName(RuntimeHooks.currentTaskName(), forTask: id) }
  }

  func markBodyFinished() { state.withLock { $0.markBodyFinished() } }

  /// Starts a failure bound in the run's virtual time; `nil` when the run is over.
  func startTimer(after delay: Duration, _ action: @escaping @Sendable () -> Void)
    -> (any CancellableTask)?
  {
    guard let id = state.withLock({ $0.startTimer(after: delay, action) }) else { return nil }
    return RunTimer(run: self, id: id)
  }

  /// Calls `action` on the drain thread after `delay` of virtual time, as if a task slept that
  /// long: it counts as progress, not as a failure bound. Returns `false` when the run is over.
  func wake(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Bool {
    state.withLock { $0.startTimer(after: delay, wakes: true, action) } != nil
  }

  /// Adds a note to the running task's step. Drain thread only.
  func note(_ text: String) {
    let id = currentTaskRecordingName()
    state.withLock { $0.note(text, byTask: id) }
  }

  /// The runtime id of the current task, after recording its name if the run lacks it.
  private func currentTaskRecordingName() -> UInt64? {
    guard let id = RuntimeHooks.currentTaskID() else { return nil }
    recordNameIfMissing(forTask: id)
    return id
  }

  /// A task factory created the task `taskID`. Drain thread only.
  func noteCreated(taskID: UInt64, name: String?, site: CallSite) {
    state.withLock { $0.noteCreated(taskID: taskID, name: name, at: site) }
  }

  /// A check failed in the running step. Drain thread only.
  func noteFailure() {
    let id = currentTaskRecordingName()
    state.withLock { $0.noteFailure(byTask: id) }
  }

  /// The running task finished. Drain thread only.
  func noteFinished() {
    let id = currentTaskRecordingName()
    state.withLock { $0.noteFinished(byTask: id) }
  }

  /// A job of the run waited for an actor another run used (``ActorClaims``). Drain thread only.
  func noteWaitForOtherRun(_ wait: OtherRunWait) {
    state.withLock { $0.noteWaitForOtherRun(wait) }
  }

  /// The running task waits at a Lockstep primitive; returns whether to cancel it now.
  /// Drain thread only.
  func noteWait(for what: Waiting) -> Bool {
    let id = currentTaskRecordingName()
    return state.withLock { $0.noteWait(for: what, byTask: id) } == .cancelTask
  }

  /// Where a drain left off: a drain that stops when its inline budget is spent (see ``drain(until:)``)
  /// is continued, on another thread, from here. Drain thread only — one thread at a time.
  struct DrainProgress {
    var started = false
    var report: DeterministicDeadlock?
    var steps = 0
    var jobsSinceCheck = 0
    /// A main-actor job chosen to run next, held until the drain holds the main actor, and the
    /// number of its step.
    var mainActorJob: (job: ScheduledJob, needsName: Bool, isKept: Bool, now: Int64, step: Int)?
    /// Where the last job left its task, for the trace: recorded with the next step.
    var suspendedAt = SuspensionSite.none
    /// After an actor's job, the tasks seen to run in it, each with where it was left: recorded
    /// with the next step.
    var ranInActorJob: [SchedulerTrace.RanTask] = []
    /// Whether the drain, stuck, let the main queue run since it last ran a job.
    var gaveMainActorBack = false
  }
  @exclusivity(unchecked) var progress = DrainProgress()

  /// How a stretch of draining ended.
  enum Stop {
    case finished, timedOut, tooManySteps, stoppedBeforeCrash, stopped, quarantined, abandoned
    case paused(DrainPause)
    /// This helper thread's turn ended: another thread drains the run now (``ParkedJobs``).
    case retired
  }

  /// Runs the run's jobs on this thread until the body has finished and no job is ready, or
  /// until nothing can make progress; it pauses between two jobs (``DrainPause``) when its
  /// `budget` has passed, when the next job needs the main actor and `lease` is `nil`, or when it
  /// must wait for outside jobs while holding the main actor. A later call, on any thread, goes on
  /// from there: the drain loop (`DrainLoop.swift`) decides where, from ``DrainTable``.
  func drain(until budget: ContinuousClock.Instant?, holding lease: borrowing MainActorLease?)
    -> DrainStretch
  {
    let stretch = drainStretch(until: budget, holding: lease)
    // The run is over: a thread parked in it goes on now, the last to touch the run's fields.
    if case .ended = stretch { handOnRunOver() }
    return stretch
  }

  private func drainStretch(
    until budget: ContinuousClock.Instant?, holding lease: borrowing MainActorLease?
  ) -> DrainStretch {
    if !progress.started {
      progress.started = true
      deadline = RealTime.now + FailureBoundScale.scaled(timeout)
      ActiveRuns.add(self)
    }
    let stop = asDrainThread { runJobs(budget: budget, holding: lease) }
    // No job holds the thread from here to the next stretch (a report may take a while): the
    // watchdog must not count it as blocked. A finished run is marked over by `finish()`; a
    // main-actor job chosen and held for the next stretch stays the running one.
    switch stop {
    case .finished, .retired: break
    default: if progress.mainActorJob == nil { state.withLock { $0.endStretch() } }
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
      // The watchdog failed the run while a job held this thread; that job has returned now.
      return .ended(abandonedOutcome.withLock { $0 } ?? .timedOut(state.withLock { $0.trace }, tasks: []))
    case .quarantined: return .ended(quarantine { _ in .deadlock(progress.report!) })
    }
  }

  /// How many of the run's jobs are parked in a `queue.sync` call now (``sync(on:_:barrier:)``).
  let syncCallsParked = Locked(0)

  /// What the watchdog made of the run when it gave it up (``abandonBlockedJob(blockedFor:)``), or
  /// a helper when the run ended while its caller's thread was parked (``endWhileParked(_:)``).
  private let abandonedOutcome = Locked<DrainOutcome?>(nil)

  /// Keeps `outcome` as the run's, unless it was given up already; returns whether it was kept.
  func noteAbandoned(_ outcome: DrainOutcome) -> Bool {
    abandonedOutcome.withLock { kept in
      guard kept == nil else { return false }
      kept = outcome
      return true
    }
  }

  /// Wakes the drain, which waits for outside work or a parked job's thread.
  func signalWakeup() { wakeup.signal() }

  /// Gives the run up because its running job has held the drain thread past the run's deadline
  /// (``RunWatchdog``, on its own thread): quarantines the run and returns the outcome to report,
  /// or `nil` when no job runs any more or the run is over. Reads only the run's state, under its
  /// lock: the drain thread's own fields belong to the blocked thread.
  func abandonBlockedJob(blockedFor: Duration) -> DrainOutcome? {
    let abandoned:
      (
        trace: SchedulerTrace, blocked: String, tasks: [String], ids: [UInt64], parked: [ParkedWaits.Wait]
      )? =
        state.withLock { state in
          let parked = state.parked.waits
          guard case .reportBlocked(let task) = state.abandonBlockedJob() else { return nil }
          let blocked = task == 0 ? "an actor's job" : state.taskDescription(task)
          return (state.trace, blocked, state.taskDescriptions(), state.taskIDs, parked)
        }
    guard let abandoned else { return nil }
    ActiveRuns.quarantine(self, taskIDs: abandoned.ids)
    ActorClaims.release(self)
    clocks?.letGo()
    releaseParkedThreads(abandoned.parked)
    let outcome = DrainOutcome.blocked(
      abandoned.trace,
      blocked: "\(abandoned.blocked), for \(blockedFor.millisecondsText) past the run's bound,",
      tasks: abandoned.tasks)
    guard noteAbandoned(outcome) else { return nil }
    return outcome
  }

  /// Ends a run whose drain could not get the main actor by its deadline.
  func failWithoutMainActor() -> DrainOutcome {
    let outcome = quarantine { .mainActorUnavailable($0) }
    handOnRunOver()
    return outcome
  }

  /// The run's real-time deadline, once its drain has started: written once, before the run is
  /// added to the runs in progress, and read by other threads (``RunWatchdog``) only from there.
  private(set) var deadline = RealTime.now

  /// Runs `body` as this run's drain thread: jobs enqueued, tasks created and main-queue blocks
  /// posted on this thread go to the run.
  private func asDrainThread<T>(_ body: () -> T) -> T {
    drainerTaskID = RuntimeHooks.currentTaskID()
    // No job holds a lock of the runtime as a stretch begins (a lock is let go in the job that
    // took it): a count the thread kept from other code starts again at zero.
    lockstep_locks_job_starts()
    func drain() -> T {
      DrainingRun.with(self) {
        ActorClaims.claiming(for: self) {
          TaskCreationHook.observing(self) { MainQueueHandOff.observing(self, body) }
        }
      }
    }
    guard let crashTrail else { return drain() }
    return crashTrail.recording(drain)
  }

  /// Runs one job of the run on this thread, reading the run's clocks at `now`; a main-actor job
  /// only with `lease`.
  private func runJob(_ job: ScheduledJob, now: Int64, holding lease: borrowing MainActorLease?) {
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

  /// After an actor's job, reads where each task of the run that switched executors in it was
  /// left: the tasks it ran.
  private func noteTasksOfActorJob() {
    let count = Int(switchRecord.pointee.count)
    guard count > 0 else { return }
    switchRecord.pointee.count = 0
    let kept = min(count, Int(lockstep_task_switch_record_capacity))
    let tasks = withUnsafeBytes(of: switchRecord.pointee.task_ids) { bytes in
      let ids = bytes.assumingMemoryBound(to: UInt64.self).prefix(kept)
      return state.withLock { $0.tasksSwitching(ids) }
    }
    for (task, object) in tasks {
      guard let pointer = UnsafeRawPointer(bitPattern: object) else { continue }
      progress.ranInActorJob.append(
        SchedulerTrace.RanTask(task: task, site: SuspendedTaskStacks.site(ofTask: pointer)))
    }
  }

  /// Runs the chosen job, of step `step`, on this thread; returns why draining stops after it, if
  /// it does.
  private func run(
    _ job: ScheduledJob, needsName: Bool, isKept: Bool, now: Int64, step: Int,
    budget: ContinuousClock.Instant?, holding lease: borrowing MainActorLease?
  ) -> Stop? {
    runningTaskID = job.taskID
    runningNameChecked = !needsName
    jobStart = ContinuousClock.now
    crashTrail?.record(step: step)
    runJob(job, now: now, holding: lease)
    crashTrail?.record(step: 0)
    runningTaskID = nil
    if isKept { progress.suspendedAt = SuspendedTaskStacks.site(of: job.job) }
    if job.isActorJob { noteTasksOfActorJob() }
    return afterJob(budget: budget)
  }

  /// Counts the job that just returned; returns why draining stops after it, if it does.
  func afterJob(budget: ContinuousClock.Instant?) -> Stop? {
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
    if let budget, jobStart >= budget { return .paused(.budgetSpent) }
    progress.jobsSinceCheck += 1
    if progress.jobsSinceCheck >= 4096 {
      progress.jobsSinceCheck = 0
      if ContinuousClock.now >= deadline { return .timedOut }
    }
    return nil
  }

  /// Reads the clock between jobs, for the run's bounds: there this thread reads real time (the
  /// run's clocks are set only around each job).
  func runJobs(budget: ContinuousClock.Instant?, holding lease: borrowing MainActorLease?)
    -> Stop
  {
    let deadline = self.deadline
    let holdingMainActor: Bool
    switch lease {
    case .some: holdingMainActor = true
    case .none: holdingMainActor = false
    }
    while true {
      if let held = progress.mainActorJob {
        guard holdingMainActor else { return .paused(.needsMainActor) }
        progress.mainActorJob = nil
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
      // Read in place, then emptied keeping its storage: no copy, no allocation per step.
      let (step, needsName, isKept, now, number) = state.withLock {
        (
          $0.next(previousStepSuspendedAt: site, ranInActorJob: progress.ranInActorJob),
          $0.runningTaskNeedsName, $0.runningTaskIsKept, $0.nowNanoseconds, $0.trace.steps.count
        )
      }
      if !progress.ranInActorJob.isEmpty { progress.ranInActorJob.removeAll(keepingCapacity: true) }
      switch step {
      case .run(let job):
        if job.isMainActor && !holdingMainActor {
          progress.mainActorJob = (job, needsName, isKept, now, number)
          return .paused(.needsMainActor)
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
    let ran = progress.ranInActorJob
    progress.ranInActorJob = []
    if !site.isNone || !ran.isEmpty { state.withLock { $0.recordAfterStep(site, ranInActorJob: ran) } }
    return stop
  }

  /// Ends a run that cannot finish: its tasks stay suspended for good, and jobs of theirs that
  /// arrive later are held. The actors whose jobs were ready are freed first
  /// (``releaseActors()``). `outcome` is made from the run's trace, which counts the actor jobs
  /// left held, if any: the report says that those actors stay busy.
  private func quarantine(_ outcome: (SchedulerTrace) -> DrainOutcome) -> DrainOutcome {
    let (taskIDs, parked) = state.withLock { state in
      let parked = state.parked.waits
      state.quarantineAll()
      return (state.taskIDs, parked)
    }
    ActiveRuns.quarantine(self, taskIDs: taskIDs)
    let leftBusy = releaseActors()
    ActorClaims.release(self)
    if progress.report != nil { CrashReport.releaseRunReport(for: self) }
    var trace = state.withLock { $0.trace }
    trace.actorJobsLeftBusy = leftBusy
    let ended = outcome(trace)
    // A helper ends the run for a caller whose thread is parked: that thread, released below,
    // returns this outcome.
    if drainsAsHelper { _ = noteAbandoned(ended) }
    clocks?.letGo()
    releaseParkedThreads(parked)
    return ended
  }

  /// The most actor jobs a quarantine runs to free actors.
  static var actorReleaseLimit: Int { 10_000 }

  /// Runs the quarantine's actor jobs, so that no actor stays busy for good: an actor whose job
  /// never runs never runs another, and a later test that calls it would wait forever. Each job
  /// runs the work queued on its actor one step, as the run would have; the task jobs that work
  /// enqueues stay held, and the actor jobs it enqueues run in turn, up to
  /// ``actorReleaseLimit``. Returns how many actor jobs are left held.
  private func releaseActors() -> Int {
    var budget = Self.actorReleaseLimit
    asDrainThread {
      while budget > 0,
        let (job, now) = state.withLock({ state in
          state.takeHeldActorJob().map { ($0, state.nowNanoseconds) }
        })
      {
        runningTaskID = nil
        runHoldingQuarantinedTasks { runJob(job, now: now, holding: nil) }
        budget -= 1
      }
    }
    return state.withLock { $0.heldActorJobCount }
  }

  /// Ends a run whose body finished (or that reported a deadlock its cancellation unwound).
  private func finish() -> DrainOutcome {
    ActiveRuns.remove(self)
    ActorClaims.release(self)
    if progress.report != nil { CrashReport.releaseRunReport(for: self) }
    let (finished, tasks) = state.withLock { state in (state.finish(), state.takeTaskObjects()) }
    SuspendedTaskStacks.release(tasks)
    for (job, remaining) in finished.forward { RuntimeHooks.forward(job, after: remaining) }
    // A wait still pending after the run keeps its failure bound, now in real time.
    for (id, remaining) in finished.timersInRealTime {
      _ = Timeouts.startInRealTime(after: remaining) { [self] in
        state.withLock { $0.removeTimer(id) }?()
      }
    }
    if let report = progress.report { return .deadlock(report) }
    return .finished(state.withLock { $0.trace })
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

  /// Work a job of this run (`byRunningJob`), or outside work of it, hands to another thread
  /// starts; its id, or `nil` when the run takes no more.
  func beginOutsideWork(
    _ kind: OutsideWork.Kind, label: String?, queue: UInt? = nil, byRunningJob: Bool
  ) -> UInt64? {
    state.withLock { $0.beginOutsideWork(kind, label: label, queue: queue, byRunningJob: byRunningJob) }
  }

  /// Whether the run is still running: outside work that rests in it is woken by it.
  var takesOutsideWork: Bool { state.withLock { $0.phase == .running } }

  /// The outside work of `id` returned.
  func endOutsideWork(_ id: UInt64) {
    if state.withLock({ $0.endOutsideWork(id) }) == .wakeDrain { wakeup.signal() }
  }

  /// Outside work `id` (XCTest's waiter) waits for `delay` of virtual time, until `action` at its
  /// deadline; the wake-up's timer, or `nil` when the run takes no more.
  func outsideWorkRests(_ id: UInt64, for delay: Duration, _ action: @escaping @Sendable () -> Void)
    -> UInt64?
  {
    switch state.withLock({ $0.outsideWorkRests(id, for: delay, action) }) {
    case .waitInRealTime: return nil
    case .rest(let timer): return timer
    case .restAndWakeDrain(let timer):
      wakeup.signal()
      return timer
    }
  }

  /// The rest of outside work `id` ended (see ``RunState/outsideWorkWakes(_:byRun:dropping:)``).
  func outsideWorkWakes(
    _ id: UInt64, byRun: Bool, dropping timer: UInt64?, release: (@Sendable () -> Void)? = nil
  ) {
    state.withLock { $0.outsideWorkWakes(id, byRun: byRun, dropping: timer, release: release) }
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

  private func makeRealClockSleep() -> RealClockSleep {
    state.withLock { state in
      RealClockSleep(
        site: site, task: state.realClockSleeper.map { state.taskDescription($0) } ?? "a task",
        trace: state.trace)
    }
  }

  /// Reads where each suspended task waits outside the lock: the run's tasks run on this thread
  /// only, and it is between two jobs.
  /// The run's tasks as a report lists them, with where each waits, and a last line saying why
  /// it does not when where they wait cannot be read here: for runs that time out or reach their
  /// step limit.
  private func unfinishedTasks() -> [String] {
    let (waits, notShown) = readWaits()
    let (tasks, outside) = state.withLock { ($0.taskDescriptions(waits: waits), $0.outsideWork.inFlight) }
    return outside.map { "outside work still running: " + $0.description } + tasks
      + (notShown.map { ["(Where each task waits is not shown: \($0).)"] } ?? [])
  }

  /// The deadlock report; `found`, the report made when the deadlock was found, gives the tasks'
  /// lines of a report made after the body's unwind.
  private func makeReport(quarantined: Bool, found: DeterministicDeadlock? = nil) -> DeterministicDeadlock {
    let (waits, notShown) = found == nil ? readWaits() : ([:], found?.waitsNotShown)
    return state.withLock { state in
      var report = DeterministicDeadlock(
        site: site, tasks: found?.tasks ?? state.taskDescriptions(waits: waits), virtualTime: state.now,
        trace: state.trace, quarantined: quarantined, waitsNotShown: notShown)
      if let found { report.stepsWhenFound = found.trace.steps.count }
      report.sawWorkFromOutside = gracePeriod == .zero && state.jobsFromOtherThreads > 0
      return report
    }
  }

  /// Where each task a report describes waits, and why it cannot be read here if it cannot;
  /// symbolicated (with where the tasks were created) outside the run's lock, so that describing
  /// the tasks under it finds every name ready.
  private func readWaits() -> (waits: [Int: [String]], notShown: String?) {
    let (suspended, origins, parked, locks) = state.withLock {
      ($0.suspendedTaskObjects, $0.reportedTaskOrigins, $0.parked.waits, $0.locks)
    }
    TaskOriginSymbols.prepare(origins)
    let notShown = suspended.isEmpty ? nil : SuspendedTaskStacks.unavailability
    var waits = SuspendedTaskStacks.lines(for: suspended)
    let threads = parkedThreads.withLock { $0 }
    for wait in parked where wait.waitingTask != 0 {
      guard let frames = threads[wait.id]?.frames else { continue }
      let lock = LockPoints.line(for: wait, locks: locks) { "task \($0)" }
      waits[wait.waitingTask] = (lock.map { [$0] } ?? []) + ParkedJobs.siteLines(frames, call: wait.kind)
    }
    return (waits, notShown)
  }
}

/// A failure bound in a run's virtual time; cancelling removes it.
private struct RunTimer: CancellableTask {
  let run: DeterministicRun
  let id: UInt64
  func cancel() { _ = run.state.withLock { $0.removeTimer(id) } }
}
