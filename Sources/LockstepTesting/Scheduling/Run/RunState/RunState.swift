/// The pure state machine of one deterministic run. It decides; ``DeterministicRun``, the shell
/// around it, holds the lock, runs the jobs it hands out and does what its answers say.
///
/// This file holds the run's state. Each concern that reads and writes it is an extension in a
/// file of its own beside this one (`RunState+….swift`): admission, the next step, step records,
/// outside work, parked jobs, lock points, task events, timers, task descriptions, the end.
struct RunState<Job: SchedulableJob>: JobRouter.RunView {
  typealias Phase = RunPhase

  // Written only by RunState's own extensions; the shell reads what it needs.

  /// The jobs ready to run, in the run's order.
  var ready: ReadyJobs<Job>
  /// The sleepers, in virtual time.
  var time = VirtualTime<RunEntry<Job>>()
  /// The timers that are not jobs: failure bounds and wake-ups.
  var timers = RunTimers()
  /// What is known of the run's tasks.
  var tasks = TaskRecords()
  /// Tasks created in the run whose first job has not reached it yet, by runtime id.
  var unseenCreations: [UInt64: TaskCreation] = [:]
  /// Tasks created outside the run while it is in progress, and the tasks they created.
  var createdOutside: Set<UInt64> = []
  var cancellation: InjectedCancellation
  var trace = SchedulerTrace()
  var bodyFinished = false
  var phase = Phase.running
  /// Whether the drain thread is blocked waiting for a job from outside the run.
  var drainWaiting = false
  /// Jobs held for good: the run is quarantined.
  var quarantine: [Job] = []
  /// The task of the job running now (0 for a job that is not a task), `nil` between jobs.
  var runningTask: Int?
  /// Whether the name of the running job's task is still to be looked up: asked once per job,
  /// right after ``next(previousStepSuspendedAt:ranInActorJob:)`` hands it out.
  var runningTaskNeedsName = false
  /// Whether the run keeps the running job's task alive (``TaskRecord/object``), so that where it
  /// is suspended can be read once the job returns.
  var runningTaskIsKept = false
  /// A task that sleeps until deadlines computed from the real clock: the run stops.
  var realClockSleeper: Int?
  /// How many of the run's jobs arrived from a thread that does not drain it: work from outside
  /// the run, such as a continuation resumed by real I/O.
  var jobsFromOtherThreads = 0
  /// Work the run's jobs handed to other threads, not returned yet.
  var outsideWork = OutsideWork()
  /// How many Dispatch source event handlers the run's jobs set: a signal the run sends itself is
  /// awaited only where one may handle it.
  var sourceEventHandlers = 0
  /// What lets outside work a job woke go on, once the job's step is over: it must not run beside
  /// the job, or where the job's task goes next would depend on which thread is faster.
  var outsideWorkReleases: [@Sendable () -> Void] = []
  /// Jobs stopped mid-way in a blocking wait, each on its own thread.
  var parked = ParkedWaits()
  /// Main-actor jobs that came up while a parked thread held the main actor, oldest first: ready
  /// again when it resumes.
  var mainActorDeferred: [RunEntry<Job>] = []
  /// The locks of the code under test the run's jobs took.
  var locks = LockTable()
  /// What runs next, picked at a lock point where the job that reached it stopped.
  var chosenAtLockPoint: ChosenAtLockPoint?
  /// Whether the run's jobs switched to a default actor (``ActorClaims``).
  var claimsActors = false

  /// A run whose ready jobs are ordered by `order`; exploration may cancel the task that reaches
  /// the `cancelAtWait`-th Lockstep wait.
  /// `readsVirtualNow` says whether the run's jobs read virtual now (``VirtualNow``). `trace` is
  /// an empty trace whose buffers the run reuses (``SchedulerTrace/moveBuffersToNewTrace()``).
  init(
    order: ReadyJobs<Job>.Order, cancelAtWait: Int? = nil, readsVirtualNow: Bool = false,
    trace reused: SchedulerTrace? = nil
  ) {
    ready = ReadyJobs(order)
    if let reused {
      trace = reused
    } else {
      // Room for a typical test's run, so that the trace does not grow from empty one doubling
      // at a time. Each buffer stays under 1 KB, which glibc serves from a per-thread cache.
      trace.steps.reserveCapacity(24)
      trace.events.reserveCapacity(16)
    }
    trace.readsVirtualNow = readsVirtualNow
    cancellation = InjectedCancellation(atWait: cancelAtWait)
  }

  var readyCount: Int { ready.count }
  /// Whether the run has reached step `number` (from 1, as its timeline numbers steps) and has work
  /// left that would run it: a replay up to a crash stops there.
  func wouldRun(step number: Int) -> Bool {
    trace.steps.count + 1 >= number && (!bodyFinished || ready.count > 0 || !parked.isEmpty)
  }
  var sleeperCount: Int { time.sleeperCount }
  var now: Duration { time.now }
  var nowNanoseconds: Int64 { time.nanoseconds }
  /// The exploration's picker, with its choices, when the order is `.picked`.
  var picker: (any SchedulePicker)? { ready.picker }
  /// The Lockstep waits of tasks other than the body so far: the points where exploration can
  /// inject a cancellation.
  var waitCount: Int { cancellation.waits }
  var bodyTaskID: UInt64? { tasks.bodyTaskID }

  /// Whether the task has reached this run, so its jobs from other threads belong here.
  func owns(taskID: UInt64) -> Bool { tasks.number(of: taskID) != nil }

  func number(ofTask id: UInt64) -> Int? { tasks.number(of: id) }

  func createdOutside(task id: UInt64) -> Bool { createdOutside.contains(id) }

  /// The runtime ids of every task that reached the run.
  var taskIDs: [UInt64] { tasks.taskIDs }

  /// How far the run got, for the watchdog: the steps so far, and the task whose job runs now
  /// (0 for a job of no task), if a job runs.
  var jobInProgress: (steps: Int, task: Int?) { (trace.steps.count, runningTask) }
}
