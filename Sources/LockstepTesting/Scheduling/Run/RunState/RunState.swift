/// The pure state machine of one deterministic run. It decides; ``DeterministicRun``, the shell
/// around it, holds the lock, runs the jobs it hands out and resumes what it says to resume.
///
/// It keeps the ready jobs (``ReadyJobs``), the sleepers in virtual time (``VirtualTime``), the
/// timers that are not jobs (``RunTimers``), what is known of the tasks (``TaskRecords``), the
/// trace, and the events Lockstep's primitives report about the running task.
struct RunState<Job: SchedulableJob>: JobRouter.RunView {
  typealias Phase = RunPhase

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

  /// What happened to a job handed to the run.
  enum Admission: Equatable {
    /// Stored; `wake` says whether the drain thread waits for it and must be woken.
    case accepted(wake: Bool)
    /// The run is over: the caller forwards the job to the platform executor.
    case forward
    /// The run is quarantined: the job is held and never runs.
    case quarantined
  }

  private var ready: ReadyJobs<Job>
  private var time = VirtualTime<RunEntry<Job>>()
  private var timers = RunTimers()
  private var tasks = TaskRecords()
  /// Tasks created in the run whose first job has not reached it yet, by runtime id.
  private var unseenCreations: [UInt64: TaskCreation] = [:]
  /// Tasks created outside the run while it is in progress, and the tasks they created.
  private var createdOutside: Set<UInt64> = []
  private var cancellation: InjectedCancellation
  private(set) var trace = SchedulerTrace()
  private(set) var bodyFinished = false
  private(set) var phase = Phase.running
  /// Whether the drain thread is blocked waiting for a job from outside the run.
  private var drainWaiting = false
  private(set) var quarantine: [Job] = []
  /// The task of the job running now (0 for a job that is not a task), `nil` between jobs.
  private(set) var runningTask: Int?
  /// A task that sleeps until deadlines computed from the real clock: the run stops.
  private(set) var realClockSleeper: Int?
  /// Work the run's jobs handed to other threads, not returned yet.
  private(set) var outsideWork = OutsideWork()
  /// Jobs stopped mid-way in a blocking wait, each on its own thread.
  private(set) var parked = ParkedWaits()
  /// The locks of the code under test the run's jobs took.
  private(set) var locks = LockTable()
  /// What runs next, picked at a lock point where the job that reached it stopped.
  private var chosenAtLockPoint: ChosenAtLockPoint?
  /// Main-actor jobs that came up while a parked thread held the main actor, oldest first: ready
  /// again when it resumes.
  private var mainActorDeferred: [RunEntry<Job>] = []

  /// A run whose ready jobs are ordered by `order`; exploration may cancel the task that reaches
  /// the `cancelAtWait`-th Lockstep wait.
  /// `readsVirtualNow` says whether the run's jobs read virtual now (``VirtualNow``).
  init(order: ReadyJobs<Job>.Order, cancelAtWait: Int? = nil, readsVirtualNow: Bool = false) {
    ready = ReadyJobs(order)
    trace.readsVirtualNow = readsVirtualNow
    cancellation = InjectedCancellation(atWait: cancelAtWait)
    // Room for a typical test's run, so that the trace does not grow from empty one doubling at
    // a time. Each buffer stays under 1 KB, which glibc serves from a per-thread cache.
    trace.steps.reserveCapacity(24)
    trace.events.reserveCapacity(16)
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

  // MARK: Jobs

  /// Takes a ready job, as ``JobRouter`` routes it. `enqueuer` gives the task whose work the
  /// drain thread runs as it enqueues the job, if any; it is asked only for a job of a task the
  /// run does not know yet.
  mutating func enqueue(
    _ job: Job, enqueuer: () -> UInt64? = { nil }, fromOtherThread: Bool = false
  ) -> Admission {
    let admission = admit(job, actingTask: enqueuer) { state, entry in state.ready.append(entry) }
    if fromOtherThread, case .accepted = admission { jobsFromOtherThreads += 1 }
    return admission
  }

  /// How many of the run's jobs arrived from a thread that does not drain it: work from outside
  /// the run, such as a continuation resumed by real I/O.
  private(set) var jobsFromOtherThreads = 0

  // MARK: Tasks from outside

  /// A task was created outside the run while it is in progress (on a thread that does not drain
  /// it): its jobs are not the run's.
  mutating func noteCreatedOutside(taskID id: UInt64) {
    guard phase == .running, createdOutside.count < Self.createdOutsideLimit else { return }
    createdOutside.insert(id)
  }

  /// The most tasks created outside the run that the run remembers.
  static var createdOutsideLimit: Int { 1 << 16 }

  /// A sleep of the running task: `job` becomes ready after the sleep's delay of virtual time.
  /// The job (the runtime's wake-up task) is credited to the task that sleeps, `sleeper` (the
  /// runtime id of the current task) or the task of the running job.
  mutating func schedule(_ job: Job, sleep: SleepRequest, sleeper: UInt64?) -> Admission {
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

  private mutating func admit(
    _ job: Job, actingTask: () -> UInt64? = { nil }, _ store: (inout Self, RunEntry<Job>) -> Void
  ) -> Admission {
    let task: Int
    switch JobRouter.route(.job(task: job.taskID), in: self, actingTask: actingTask) {
    case .platform: return .forward
    case .held:
      quarantine.append(job)
      return .quarantined
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
    return .accepted(wake: drainWaiting)
  }

  /// Picks the next job: a ready one if any; otherwise, while the body runs, a due timer or the
  /// earliest sleeper (advancing virtual time). Records the step in the trace, after recording
  /// where the previous step left its task (``recordSuspension(_:)``).
  mutating func next(
    previousStepSuspendedAt site: SuspensionSite = .none, ranInActorJob ran: [SchedulerTrace.RanTask] = []
  ) -> Step {
    recordAfterStep(site, ranInActorJob: ran)
    if phase == .quarantined {
      runningTask = nil
      return .abandoned
    }
    if realClockSleeper != nil {
      runningTask = nil
      return .stopped
    }
    if !parked.isEmpty {
      // A parked job whose thread is back resumes first; one the run woke is waited for, so that
      // it resumes at the same point in every run of a seed.
      if let wait = parked.takeReturned() { return resume(wait) }
      if parked.hasWokenWait {
        runningTask = nil
        drainWaiting = true
        return .waitingForOutsideWork
      }
    }
    if outsideWork.hasWokenWork {
      // XCTest's waiter, woken by the run: let go between two steps, then waited for, as a woken
      // parked job is.
      if !outsideWorkReleases.isEmpty { return .fire(outsideWorkReleases.removeFirst()) }
      runningTask = nil
      drainWaiting = true
      return .waitingForOutsideWork
    }
    if let chosen = chosenAtLockPoint {
      chosenAtLockPoint = nil
      switch chosen {
      case .job(let entry): return start(entry, woke: false)
      case .parked(let id): if let wait = parked.remove(id) { return resume(wait) }
      }
    }
    // A parked job is unfinished work, as the body is.
    let unfinished = !bodyFinished || !parked.isEmpty
    var woke = false
    var entry: RunEntry<Job>?
    if !parked.isEmpty && parked.hasRunnableLockWait {
      // A job stopped at a lock resumes when picked; in a run that is not explored, first.
      let runnable = parked.runnableLockWaits
      if ready.isPicked && ready.eligibleCount > 0 {
        switch ready.pick(
          leading: [], trailing: runnable.map(\.task), previous: trace.steps.last?.task ?? 0,
          step: trace.steps.count)
        {
        case .job(let picked): entry = picked
        case .trailing(let index): if let wait = parked.remove(runnable[index].id) { return resume(wait) }
        case .leading: break
        }
        if let picked = entry, deferIfMainActorParked(picked) { entry = nextReady() }
      } else if let wait = parked.remove(runnable[0].id) {
        return resume(wait)
      }
    } else {
      entry = nextReady()
    }
    if entry == nil && unfinished && (outsideWork.holdsTime || parked.holdsTime) {
      // Virtual time stands still, and nothing is stuck, while work on other threads goes on.
      runningTask = nil
      drainWaiting = true
      return .waitingForOutsideWork
    }
    if entry == nil && unfinished {
      // While a reported deadlock unwinds, virtual time stands still for sleepers: code that
      // sleeps once cancelled (a shutdown timeout, say) must not see time run out because the
      // run gave up; such a sleep stays unfinished, and the run is quarantined.
      var sleeper = time.nextDeadline
      if timers.deadlockReported, let deadline = sleeper, deadline > time.now { sleeper = nil }
      if let (deadline, action) = timers.takeDue(nextSleeper: sleeper) {
        time.advance(to: deadline)
        return .fire(action)
      }
      if sleeper != nil {
        entry = time.advanceToNext()
        woke = entry != nil
        if let woken = entry, deferIfMainActorParked(woken) { entry = nextReady() }
      }
    }
    guard let entry else {
      runningTask = nil
      if !unfinished { return .finished }
      drainWaiting = true
      return outsideWork.isEmpty ? .stuck : .waitingForOutsideWork
    }
    return start(entry, woke: woke)
  }

  /// Hands out `entry`'s job as the next step; `woke` when it woke from a sleep.
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

  /// The next ready job; main-actor jobs are set aside while a parked thread holds the main actor.
  private mutating func nextReady() -> RunEntry<Job>? {
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

  /// Records where the last step left its task, read once its job returned.
  mutating func recordSuspension(_ site: SuspensionSite) {
    guard !site.isNone, let last = trace.steps.indices.last else { return }
    trace.steps[last].suspendedAt = site
    if site.finished, let task = trace.steps[last].task { tasks[task].finished = true }
  }

  /// Records what the drain read once the last step's job returned: where it left its task, and
  /// for an actor's job the tasks seen to run in it (``tasksSwitching(_:)``) with where it left
  /// them.
  mutating func recordAfterStep(_ site: SuspensionSite, ranInActorJob ran: [SchedulerTrace.RanTask]) {
    recordSuspension(site)
    guard !ran.isEmpty, let last = trace.steps.indices.last, trace.steps[last].task == nil else {
      return
    }
    trace.tasksRanInActorJobs[last] = ran
    for entry in ran {
      tasks[entry.task].lastStep = last
      if entry.site.finished { tasks[entry.task].finished = true }
    }
  }

  /// The tasks of the run, by number and kept address, among those with runtime ids `ids` (tasks
  /// that switched executors during an actor's job), each once, in order.
  func tasksSwitching(_ ids: some Sequence<UInt64>) -> [(task: Int, object: UInt)] {
    var found: [(task: Int, object: UInt)] = []
    for id in ids {
      guard let task = tasks.number(of: id), let object = tasks[task].object,
        !found.contains(where: { $0.task == task })
      else { continue }
      found.append((task, object))
    }
    return found
  }

  /// The drain thread stopped waiting for outside jobs.
  mutating func stopWaiting() { drainWaiting = false }

  // MARK: Outside work

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

  /// How many Dispatch source event handlers the run's jobs set: a signal the run sends itself is
  /// awaited only where one may handle it.
  private var sourceEventHandlers = 0

  /// The outside work of `id` returned; `true` when the drain thread waits and must be woken.
  mutating func endOutsideWork(_ id: UInt64) -> Bool {
    let queue = outsideWork.queue(of: id)
    guard outsideWork.end(id) else { return false }
    // A job parked in `queue.sync` behind the run's last block on that queue is on its way back:
    // the run waits for it, and declares no deadlock meanwhile.
    if let queue, !outsideWork.hasWork(onQueue: queue) { parked.wakeSyncWaits(on: queue) }
    return wakesDrain()
  }

  /// Whether the drain thread waits for outside work and must now look again; it stops waiting.
  private mutating func wakesDrain() -> Bool {
    guard drainWaiting, !outsideWork.hasWokenWork, !outsideWork.holdsTime || readyCount > 0 else {
      return false
    }
    drainWaiting = false
    return true
  }

  /// Outside work `id` (XCTest's waiter) waits for `delay` of virtual time: it holds time no
  /// longer, and `action` ends its wait at the deadline. Returns the wake-up's timer and whether
  /// the drain thread must look again; `nil` when the run takes no more.
  mutating func outsideWorkRests(
    _ id: UInt64, for delay: Duration, _ action: @escaping @Sendable () -> Void
  ) -> (timer: UInt64, wakesDrain: Bool)? {
    guard phase == .running, outsideWork.rest(id),
      let timer = startTimer(after: delay, wakes: true, action)
    else { return nil }
    return (timer, wakesDrain())
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

  /// What lets outside work a job woke go on, once the job's step is over: it must not run beside
  /// the job, or where the job's task goes next would depend on which thread is faster.
  private var outsideWorkReleases: [@Sendable () -> Void] = []

  // MARK: Parked jobs

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

  // MARK: Locks

  /// What a job that reaches a lock point does.
  enum LockPointDecision: Equatable {
    /// It goes on (and takes the lock, unless it only tries it).
    case go
    /// It stops: its thread parks as wait `id` until the run resumes it.
    case park(UInt64)
  }

  /// What runs next, chosen at a lock point.
  enum ChosenAtLockPoint {
    case job(RunEntry<Job>)
    /// A job parked at a lock point, by wait id.
    case parked(UInt64)
  }

  /// The running job, on `thread`, reaches `lock` from `caller`: `tries` for a `trylock`, which
  /// takes the lock only once the C library gave it (``lockTaken(_:thread:caller:actingTask:)``).
  /// It waits when another job holds the lock, or a non-recursive lock it holds itself (a
  /// deadlock). Otherwise, when `mayChoose` and an exploration picks, the picker chooses between
  /// it going on and every other job that may run; the one chosen runs next.
  mutating func lockPoint(
    _ lock: UInt, thread: UInt, caller: UInt, recursive: Bool, tries: Bool, mayChoose: Bool,
    holdsMainActor: Bool = false, actingTask: UInt64? = nil
  ) -> LockPointDecision {
    guard phase == .running, let task = runningTask else { return .go }
    let step = trace.steps.count - 1
    let waiting = eventTask(actingTask) ?? task
    if let holder = locks.holder(of: lock) {
      let own = holder.thread == thread
      // A trylock fails in the C library; a recursive lock is taken again.
      if tries || (own && recursive) {
        if !tries { locks.take(lock, thread: thread, task: waiting, caller: caller) }
        return .go
      }
      let id = parked.parkAtLock(
        lock, task: task, waitingTask: waiting, step: step, thread: thread, runnable: false,
        holdsMainActor: holdsMainActor)
      noteLockWait(.lock(heldBy: holder.task), task: waiting, step: step)
      runningTask = nil
      return .park(id)
    }
    if mayChoose,
      let id = offerChoice(
        at: lock, call: "a lock", task: task, waiting: waiting, thread: thread, holdsMainActor: holdsMainActor
      )
    {
      return .park(id)
    }
    if !tries { take(lock, thread: thread, task: waiting, caller: caller) }
    return .go
  }

  /// The running job, on `thread`, is about to wait on `object` — a semaphore, a group, a queue's
  /// `sync` — where another job might have run first: where an exploration picks and the run's
  /// jobs created `object`, the picker chooses between it going on and every other job that may
  /// run.
  mutating func choicePoint(
    at object: UInt, call: String, thread: UInt, holdsMainActor: Bool = false, actingTask: UInt64? = nil
  ) -> LockPointDecision {
    // Only the code under test's own: Lockstep's, XCTest's and Swift Testing's waits are not.
    guard phase == .running, let task = runningTask, parked.isCreatedByRun(object),
      let id = offerChoice(
        at: object, call: call, task: task, waiting: eventTask(actingTask) ?? task, thread: thread,
        holdsMainActor: holdsMainActor)
    else { return .go }
    return .park(id)
  }

  /// Asks an exploration's picker whether the running job of `task` goes on at `object` or
  /// another job runs first; in the second case parks the job, runnable, and returns its wait's
  /// id. A job holding the main actor goes on: the main-actor jobs it would let run first could
  /// not run without the main actor.
  private mutating func offerChoice(
    at object: UInt, call: String, task: Int, waiting: Int, thread: UInt, holdsMainActor: Bool
  ) -> UInt64? {
    guard ready.isPicked, !holdsMainActor else { return nil }
    let others = parked.runnableLockWaits
    guard ready.eligibleCount + others.count > 0 else { return nil }
    let picked = ready.pick(
      leading: [task], trailing: others.map(\.task), previous: task, step: trace.steps.count)
    switch picked {
    case .leading: return nil
    case .job(let entry): chosenAtLockPoint = .job(entry)
    case .trailing(let index): chosenAtLockPoint = .parked(others[index].id)
    }
    let step = trace.steps.count - 1
    let id = parked.parkAtLock(
      object, task: task, waitingTask: waiting, step: step, thread: thread, runnable: true)
    noteLockWait(.turnAt(call), task: waiting, step: step)
    runningTask = nil
    return id
  }

  /// The running job's `trylock` on `thread` took `lock`, or a condition's wait took it back.
  mutating func lockTaken(_ lock: UInt, thread: UInt, caller: UInt, actingTask: UInt64? = nil) {
    guard phase == .running, let task = runningTask else { return }
    take(lock, thread: thread, task: eventTask(actingTask) ?? task, caller: caller)
  }

  /// The running job took a lock of `kind` that is no scheduling point (a read-write lock, or a
  /// lock taken while the runtime held one of its own): an exploration says so.
  mutating func noteLockNotScheduled(_ kind: String) {
    guard phase == .running, ready.isPicked, trace.locksNotScheduled.count < 8 else { return }
    trace.locksNotScheduled.insert(kind)
  }

  /// The job on `thread` let `lock` go: the jobs waiting for it may resume.
  mutating func lockReleased(_ lock: UInt, thread: UInt) {
    guard phase == .running, locks.release(lock, thread: thread) else { return }
    parked.lockFreed(lock)
  }

  private mutating func take(_ lock: UInt, thread: UInt, task: Int, caller: UInt) {
    locks.take(lock, thread: thread, task: task, caller: caller)
    for waiting in parked.lockTaken(lock) where waiting != 0 {
      tasks[waiting].waitingOn = .lock(heldBy: task)
    }
  }

  private mutating func noteLockWait(_ what: Waiting, task: Int, step: Int) {
    guard task != 0 else { return }
    tasks[task].waitingOn = what
    trace.events.append(SchedulerTrace.Event(step: step, task: task, kind: .waits(what)))
  }

  /// A job of the run, or its outside work, signals semaphore `object` (the oldest parked wait on
  /// it is woken), or empties group `object` (`all` its waits are).
  mutating func signalParked(_ object: UInt, all: Bool) {
    guard phase == .running else { return }
    while parked.signal(object) && all {}
  }

  /// Run loop `runLoop` was stopped: the parked wait in it that was still waiting, now woken.
  mutating func stopRunLoopWait(_ runLoop: UInt) -> UInt64? {
    guard phase == .running else { return nil }
    return parked.wakeRunLoopWait(runLoop)
  }

  /// A job of the run, or its outside work, created `object`, a semaphore, a group or a queue.
  mutating func noteCreatedWaitObject(_ object: UInt) {
    guard phase == .running else { return }
    parked.noteCreated(object)
  }

  /// The deadline of parked wait `id` passed: whether its thread must be woken.
  mutating func timeOutParked(_ id: UInt64) -> Bool { parked.timeOut(id) }

  /// The thread of parked wait `id` is back from its wait: whether it timed out, and whether the
  /// drain waits and must be woken. (Once the run is over, the thread waits for its turn to go on
  /// without it: `ParkedJobs.handOnRunOver`.)
  mutating func parkedReturned(_ id: UInt64) -> (timedOut: Bool, wake: Bool) {
    let (timedOut, timer) = parked.returned(id)
    if let timer { _ = timers.remove(timer) }
    guard phase == .running else { return (timedOut, false) }
    defer { drainWaiting = false }
    return (timedOut, drainWaiting)
  }

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

  /// The shell reported a deadlock: from now on pending failure bounds fire when nothing else
  /// can run, so that waits that ignore cancellation end with their timeout error.
  mutating func markDeadlockReported() { timers.markDeadlockReported() }

  mutating func markBodyFinished() { bodyFinished = true }

  // MARK: Events of the running task

  /// The running task waits at a Lockstep primitive for `what`. Returns whether exploration
  /// injects a cancellation here: the caller then cancels the running task.
  mutating func noteWait(for what: Waiting, byTask id: UInt64?) -> Bool {
    guard let task = eventTask(id), task != 0 else { return false }
    tasks[task].waitingOn = what
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .waits(what)))
    guard cancellation.shouldCancel(task: task) else { return false }
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .cancelled))
    return true
  }

  /// A check failed, or an issue was reported, while the running step ran.
  mutating func noteFailure(byTask id: UInt64?) {
    guard let task = eventTask(id), !trace.steps.isEmpty else { return }
    trace.events.append(SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .failed))
  }

  /// The running task finished (a task of a `TestTaskFactory`, or the body).
  mutating func noteFinished(byTask id: UInt64?) {
    guard let task = eventTask(id), task != 0 else { return }
    tasks[task].finished = true
    trace.events.append(SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .finished))
  }

  /// A note from the code under test or a Lockstep primitive, about what the running task did.
  /// Whether the run's jobs switched to a default actor (``ActorClaims``).
  private var claimsActors = false

  /// A job of the run switches to a default actor: returns whether the run, still running, claims
  /// it.
  mutating func claimingActors() -> Bool {
    guard phase == .running else { return false }
    claimsActors = true
    return true
  }

  /// The run ends: returns whether it has claims to let go of.
  mutating func endClaimingActors() -> Bool {
    defer { claimsActors = false }
    return claimsActors
  }

  /// A job of the running step waited for another run's actor (``ActorClaims``), or went on beside
  /// it.
  mutating func noteWaitForOtherRun(_ wait: OtherRunWait) {
    trace.waitsForOtherRuns.append((step: max(trace.steps.count - 1, 0), wait: wait))
  }

  mutating func note(_ text: String, byTask id: UInt64?) {
    guard let task = eventTask(id) else { return }
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .note(text)))
  }

  /// The number of the task an event comes from: the current task when the runtime tells it
  /// (work an actor's job runs for a task), else the task of the running job.
  private func eventTask(_ id: UInt64?) -> Int? {
    guard runningTask != nil else { return nil }
    if let id, let number = tasks.number(of: id) { return number }
    return runningTask
  }

  /// Records the name of a task the scheduler saw running (`nil`: the task has none).
  mutating func recordName(_ name: String?, forTask id: UInt64) {
    guard let number = tasks.name(name, forTask: id), let name else { return }
    // Room for a typical run's named tasks at once, rather than a rehash at every doubling.
    if trace.taskNames.isEmpty { trace.taskNames.reserveCapacity(8) }
    trace.taskNames[number] = name
  }

  /// Whether the name of the task with runtime id `id` is still to be looked up.
  func needsName(forTask id: UInt64) -> Bool { tasks.needsName(forTask: id) }

  /// Whether the name of the running job's task is still to be looked up: asked once per job,
  /// right after ``next()`` hands it out.
  private(set) var runningTaskNeedsName = false

  /// Whether the run keeps the running job's task alive (``TaskRecord/object``), so that where it
  /// is suspended can be read once the job returns.
  private(set) var runningTaskIsKept = false

  // MARK: Timers

  /// Starts a timer that calls `action` after `delay` of virtual time: a failure bound, or with
  /// `wakes`, a wake-up that counts as progress. `nil` when the run is over (the caller uses a
  /// real-time bound instead).
  mutating func startTimer(
    after delay: Duration, wakes: Bool = false, _ action: @escaping @Sendable () -> Void
  ) -> UInt64? {
    guard phase == .running else { return nil }
    return timers.start(at: time.now + max(delay, .zero), wakes: wakes, action)
  }

  /// Removes a timer, returning its action if it had not fired yet.
  mutating func removeTimer(_ id: UInt64) -> (@Sendable () -> Void)? { timers.remove(id) }

  // MARK: The end

  /// Ends the run: returns the jobs left behind, with their remaining virtual delay, and the
  /// timers still pending, with their remaining delay (their actions stay until removed).
  mutating func finish() -> (
    jobs: [(job: Job, remaining: Duration)], timers: [(id: UInt64, remaining: Duration)]
  ) {
    phase = .finished
    unseenCreations = [:]
    var waiting = ready.removeAll().map { (job: $0.job, remaining: Duration.zero) }
    if case .job(let entry) = chosenAtLockPoint.take() { waiting.append((entry.job, .zero)) }
    let sleeping = time.removeAll().map { (job: $0.job.job, remaining: $0.remaining) }
    return (waiting + sleeping, timers.moveToRealTime(now: time.now))
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

  /// How far the run got, for the watchdog: the steps so far, and the task whose job runs now
  /// (0 for a job of no task), if a job runs.
  var jobInProgress: (steps: Int, task: Int?) { (trace.steps.count, runningTask) }

  /// A stretch of draining ended: no job runs until the next ``next(previousStepSuspendedAt:)``.
  mutating func endStretch() { runningTask = nil }

  /// Gives the run up while its running job holds the drain thread for good (the watchdog):
  /// quarantines it as ``quarantineAll()`` does, and the drain, if its job ever returns, stops at
  /// once (``Step/abandoned``). Returns `false` when no job runs or the run is over.
  mutating func abandonBlockedJob() -> Bool {
    guard phase == .running, runningTask != nil else { return false }
    quarantineAll()
    return true
  }

  /// How many actor jobs (jobs of no task, off the main actor) the quarantine holds.
  var heldActorJobCount: Int { quarantine.count { $0.isActorJob } }

  /// Takes the first actor job out of the quarantine, to be run so that its actor is free again.
  mutating func takeHeldActorJob() -> Job? {
    guard let index = quarantine.firstIndex(where: { $0.isActorJob }) else { return nil }
    return quarantine.remove(at: index)
  }

  /// The tasks of the run, the body first, for a deadlock report; `waits` gives the lines that
  /// say where a task waits, by task number.
  func taskDescriptions(waits: [Int: [String]] = [:]) -> [String] {
    tasks.descriptions(bodyFinished: bodyFinished, waits: waits)
  }

  /// Where the tasks a report describes were created: symbolicated before the report is made
  /// under the lock (``TaskOriginSymbols/prepare(_:)``).
  var reportedTaskOrigins: [TaskOrigin] { tasks.reportedOrigins }

  /// The tasks a report reads where they wait: those that ran and are not known to have finished,
  /// kept alive by the run (``TaskRecord/object``), by number.
  var suspendedTaskObjects: [Int: UInt] { tasks.suspendedObjects }

  /// Gives up the run's hold on its tasks' objects: the caller releases them.
  mutating func takeTaskObjects() -> [UInt] { tasks.takeObjects() }

  /// How task `task` is named in reports: `task 3 "debounce" (created at …)`.
  func taskDescription(_ task: Int) -> String {
    var text = "task \(task)"
    if let name = tasks[task].name { text += " \"\(name)\"" }
    if let createdAt = tasks[task].createdAt {
      text += " (created at \(createdAt))"
    } else if let origin = tasks[task].origin {
      text += " (created in \(origin))"
    }
    return text
  }

  /// The runtime created the task with runtime id `id` while one of the run's jobs ran
  /// (``TaskCreationHook``). A task whose first job has not reached the run yet is remembered
  /// until it does, at most ``unseenCreationLimit`` of them.
  /// Task `creator` (the task whose work the drain thread runs, if any) created task `id`.
  mutating func noteCreated(taskID id: UInt64, _ creation: TaskCreation, creator: UInt64? = nil) {
    switch JobRouter.route(.taskCreation(task: id), in: self, actingTask: { creator }) {
    case .platform: noteCreatedOutside(taskID: id)
    case .held: break
    case .run(let number): apply(creation, toTask: number, id: id)
    case .runRegistering:
      if unseenCreations.count < Self.unseenCreationLimit { unseenCreations[id] = creation }
    }
  }

  /// The most tasks created in a run whose first job has not reached it that the run remembers:
  /// a task that runs elsewhere (on an executor it prefers) never reaches it.
  static var unseenCreationLimit: Int { 256 }

  /// How many tasks created in the run have not reached it yet.
  var unseenCreationCount: Int { unseenCreations.count }

  private mutating func apply(_ creation: TaskCreation, toTask number: Int, id: UInt64) {
    if tasks[number].origin == nil {
      tasks[number].origin = creation.origin
      // A timeline names a task by its name when it has one, by its origin otherwise.
      if creation.name == nil {
        if trace.taskOrigins.isEmpty { trace.taskOrigins.reserveCapacity(8) }
        trace.taskOrigins[number] = creation.origin
      }
    }
    // A task's name is known now, `nil` included: it is not looked up again.
    recordName(creation.name, forTask: id)
  }

  /// A task factory created the task with runtime id `id` at `site`, named `name`.
  mutating func noteCreated(taskID id: UInt64, name: String?, at site: CallSite) {
    guard let number = tasks.number(of: id) else { return }
    tasks[number].createdAt = site
    if let name { recordName(name, forTask: id) }
  }
}
