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
  let wakeup = DispatchSemaphore(value: 0)
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
  @exclusivity(unchecked) var runningTaskID: UInt64?
  /// Whether the drain thread is running a job (rather than firing a timer between two). Drain
  /// thread only.
  @exclusivity(unchecked) var inJob = false
  /// The task that drains the run on this thread, if a task does (an inline drain): a job may
  /// still see it as the current task. Drain thread only.
  @exclusivity(unchecked) var drainerTaskID: UInt64?
  /// Whether the running task's name was looked up already. Drain thread only.
  @exclusivity(unchecked) var runningNameChecked = false
  /// The runtime id of the body's task, the run's first task; 0 until it is created. Task ids
  /// grow with every task the process creates, so a task with a smaller id existed before the run
  /// began: the test's own task, for example. Set before the run is drained, read by the drain
  /// thread.
  var bodyTaskID: UInt64 = 0
  /// When the running job started, in real time since ``RealTime/epoch`` (``jobStart``). Drain
  /// thread only.
  @exclusivity(unchecked) var jobStartSinceEpoch = RealTime.sinceEpoch
  /// When the running job started, in real time: without virtual now, sleeps of the job use it to
  /// recover their duration (see ``SleepRequest``). Drain thread only.
  var jobStart: ContinuousClock.Instant { RealTime.epoch.advanced(by: jobStartSinceEpoch) }
  /// The thread that handed this thread the turn to resume its parked job, waiting to have it
  /// back (``ParkedJobs``). Drain thread only.
  @exclusivity(unchecked) var resumer: BatonSlot?
  /// Whether this thread drains the run only while another's job is parked (a helper), not for
  /// the run's caller. Drain thread only.
  @exclusivity(unchecked) var drainsAsHelper = false
  /// What threads other than the drain's touch now and then: the threads of the run's parked
  /// jobs, the `queue.sync` calls parked, the outcome of a run given up (``Sidelines``). One lock
  /// for the three, none of which is taken while another is held: two allocations fewer a run.
  let sidelines = Locked(Sidelines())

  /// The run's fields behind ``sidelines``.
  struct Sidelines {
    /// The threads of the run's parked jobs, by wait id.
    var parkedThreads: [UInt64: ParkedThread] = [:]
    /// How many of the run's jobs are parked in a `queue.sync` call now (``sync(on:_:barrier:)``).
    var syncCallsParked = 0
    /// What the watchdog made of the run when it gave it up (``abandonBlockedJob(blockedFor:)``),
    /// or a helper when the run ended while its caller's thread was parked
    /// (``endWhileParked(_:)``).
    var abandonedOutcome: DrainOutcome?
  }

  /// A run whose ready jobs `order` orders; exploration may cancel the task at the
  /// `cancelAtWait`-th Lockstep wait, bound the run to `stepLimit` jobs, stop it before step
  /// `stopBeforeStep`, and have its steps recorded for the crash report. Its jobs read virtual now
  /// when `virtualNow` is true. Its trace reuses the buffers of `trace`, an empty trace, if given.
  init(
    order: ReadyJobs<ScheduledJob>.Order, cancelAtWait: Int? = nil, stepLimit: Int = .max,
    stopBeforeStep: Int? = nil, crashTrail: CrashReport.Trail? = nil,
    timeout: Duration, gracePeriod: Duration = .zero, site: CallSite,
    virtualNow: Bool = VirtualNow.isInEffect, trace: SchedulerTrace? = nil
  ) {
    issueContext = IssueContext.current()
    self.site = site
    self.timeout = timeout
    self.gracePeriod = gracePeriod
    self.stepLimit = stepLimit
    self.stopBeforeStep = stopBeforeStep
    self.crashTrail = crashTrail
    clocks = virtualNow ? RunClocks(wallStart: VirtualNow.startForRun) : nil
    state = Locked {
      RunState(order: order, cancelAtWait: cancelAtWait, readsVirtualNow: virtualNow, trace: trace)
    }
    switchRecord.initialize(to: lockstep_task_switch_record())
  }

  deinit {
    clocks?.free()
    switchRecord.deallocate()
  }

  /// Where the executor switches of the running actor job are recorded (`TaskSwitch.c`).
  let switchRecord = UnsafeMutablePointer<lockstep_task_switch_record>.allocate(capacity: 1)

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

  /// Where the drain left off (``DrainProgress``). Drain thread only.
  @exclusivity(unchecked) var progress = DrainProgress()

  /// Wakes the drain, which waits for outside work or a parked job's thread.
  func signalWakeup() { wakeup.signal() }

  /// The run's real-time deadline, once its drain has started: written once, before the run is
  /// added to the runs in progress, and read by other threads (``RunWatchdog``) only from there.
  var deadline = RealTime.now
}

/// A failure bound in a run's virtual time; cancelling removes it.
private struct RunTimer: CancellableTask {
  let run: DeterministicRun
  let id: UInt64
  func cancel() { _ = run.state.withLock { $0.removeTimer(id) } }
}
