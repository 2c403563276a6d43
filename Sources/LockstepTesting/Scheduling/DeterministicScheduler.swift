import Dispatch

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// What the scheduler needs to know about a job, so that its state machine can be tested with
/// plain values instead of runtime jobs.
protocol SchedulableJob {
  /// The runtime id of the task the job belongs to, or `nil` when the job is not a task.
  var taskID: UInt64? { get }
  /// Whether the job must run isolated to the main actor.
  var isMainActor: Bool { get }
}

/// The pure state machine of one deterministic run: ready jobs, sleepers in virtual time, the
/// trace, the events Lockstep's primitives report, and what is known about the run's tasks.
///
/// Tasks get run-local numbers (1, 2, …) in the order their first job reaches the run; a job that
/// is not a task (an actor's processing job) counts as task 0. With the same choices, the same
/// workload gets the same numbers, which is what makes traces and replays comparable.
struct SchedulerState<Job: SchedulableJob> {
  enum Phase: Equatable { case running, finished, quarantined }

  /// What the drain loop does next.
  enum Step {
    case run(Job)
    /// A failure bound of a Lockstep wait elapsed in virtual time: call it (outside the lock).
    case fire(@Sendable () -> Void)
    /// The body finished and no job is ready.
    case finished
    /// The body has not finished, no job is ready and nobody sleeps.
    case stuck
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

  /// A job with the run-local number of its task.
  struct Entry {
    let job: Job
    let task: Int
  }

  private var ready: ReadyQueue<Entry>
  /// Exploration only: ready jobs in arrival order, for the picker.
  private var candidates: [Entry] = []
  private(set) var picker: (any SchedulePicker)?
  private var time = VirtualTime<Entry>()
  /// Failure bounds of Lockstep waits, in virtual time; not jobs, so they are neither steps of
  /// the trace nor choices of an exploration.
  private var timers = Heap<TimerKey>()
  private var timerActions: [UInt64: @Sendable () -> Void] = [:]
  /// The live timers that wake something (an auto-advancing `TestClock`), not failure bounds.
  private var wakeTimers: Set<UInt64> = []
  private var timerSequence: UInt64 = 0
  /// Whether the shell has reported a deadlock; failure bounds may fire from then on.
  private var deadlockReported = false
  private(set) var trace = SchedulerTrace()
  private var numbers: [UInt64: Int] = [:]
  /// Records of the run's tasks; task `n` is at index `n - 1`.
  private var records: [TaskRecord] = []
  private(set) var bodyTaskID: UInt64?
  private(set) var bodyFinished = false
  private(set) var phase = Phase.running
  /// Whether the drain thread is blocked waiting for a job from outside the run.
  private var drainWaiting = false
  private(set) var quarantine: [Job] = []
  /// The task of the job running now (0 for a job that is not a task), `nil` between jobs.
  private(set) var runningTask: Int?
  /// Waits at Lockstep primitives so far by tasks other than the body, for cancellation
  /// injection.
  private var suspensions = 0
  /// Exploration only: cancel the task at this Lockstep suspension (0-based), if any.
  private let cancelAtSuspension: Int?

  init(seed: UInt64?) {
    ready = ReadyQueue(seed: seed)
    cancelAtSuspension = nil
  }

  /// A run whose order `picker` chooses (exploration); cancels the task that reaches the
  /// `cancelAtSuspension`-th Lockstep wait, if given.
  init(picker: any SchedulePicker, cancelAtSuspension: Int? = nil) {
    ready = ReadyQueue(seed: nil)
    self.picker = picker
    self.cancelAtSuspension = cancelAtSuspension
  }

  var readyCount: Int { picker == nil ? ready.count : candidates.count }
  var sleeperCount: Int { time.sleeperCount }
  var now: Duration { time.now }
  var suspensionCount: Int { suspensions }

  /// Whether the task has reached this run, so its jobs from other threads belong here.
  func owns(taskID: UInt64) -> Bool { numbers[taskID] != nil }

  /// The runtime ids of every task that reached the run.
  var taskIDs: [UInt64] { Array(numbers.keys) }

  mutating func enqueue(_ job: Job) -> Admission {
    admit(job) { state, entry in
      if state.picker == nil {
        state.ready.append(entry, serial: entry.job.isMainActor)
      } else {
        state.candidates.append(entry)
      }
    }
  }

  mutating func schedule(_ job: Job, after delay: Duration) -> Admission {
    admit(job) { state, entry in
      // A job delayed on the drain thread is the sleep of the task that runs now.
      if entry.task != 0 && state.runningTask != nil {
        let wake = state.time.now + max(delay, .zero)
        state.records[entry.task - 1].waitingOn = "a sleep until \(wake) (virtual time)"
        state.trace.events.append(
          SchedulerTrace.Event(step: state.trace.steps.count, task: entry.task, kind: .sleeps(wake)))
      }
      state.time.schedule(entry, after: delay)
    }
  }

  private mutating func admit(_ job: Job, _ store: (inout Self, Entry) -> Void) -> Admission {
    switch phase {
    case .finished: return .forward
    case .quarantined:
      quarantine.append(job)
      return .quarantined
    case .running:
      var task = 0
      if let id = job.taskID {
        if let known = numbers[id] {
          task = known
        } else {
          if records.isEmpty { bodyTaskID = id }
          records.append(TaskRecord(number: records.count + 1))
          task = records.count
          numbers[id] = task
        }
      }
      store(&self, Entry(job: job, task: task))
      defer { drainWaiting = false }
      return .accepted(wake: drainWaiting)
    }
  }

  /// Picks the next job: a ready one if any; otherwise, while the body runs, the earliest sleeper
  /// (advancing virtual time). Records the step in the trace.
  mutating func next() -> Step {
    var woke = false
    var entry = picker == nil ? ready.next() : pickCandidate()
    if entry == nil && !bodyFinished {
      while let timer = timers.min, timerActions[timer.id] == nil { _ = timers.popMin() }
      if let timer = timers.min, time.nextDeadline.map({ timer.deadline < $0 }) ?? true {
        // A failure bound fires only while something else could still make progress later (a
        // sleeper, a clock to wake). Otherwise only failure bounds are pending: that is a
        // deadlock, reported before any bound fires (the report says what each task waits for).
        let progressLater = time.nextDeadline != nil || !wakeTimers.subtracting([timer.id]).isEmpty
        if timer.wakes || progressLater || deadlockReported {
          _ = timers.popMin()
          time.advance(to: timer.deadline)
          wakeTimers.remove(timer.id)
          return .fire(timerActions.removeValue(forKey: timer.id)!)
        }
      }
      entry = time.advanceToNext()
      woke = entry != nil
    }
    guard let entry else {
      runningTask = nil
      if bodyFinished { return .finished }
      drainWaiting = true
      return .stuck
    }
    let task = entry.task
    if task != 0 {
      records[task - 1].jobsRun += 1
      records[task - 1].lastStep = trace.steps.count
      records[task - 1].lastOnMainActor = entry.job.isMainActor
      records[task - 1].waitingOn = nil
    }
    runningTask = task
    trace.steps.append(
      SchedulerTrace.Step(
        task: task == 0 ? nil : task, isMainActor: entry.job.isMainActor, time: time.now,
        wokeFromSleep: woke))
    return .run(entry.job)
  }

  /// Lets the picker choose among the ready jobs. Main-actor jobs keep their arrival order among
  /// themselves, as on the real main queue: only the oldest of them is a candidate.
  private mutating func pickCandidate() -> Entry? {
    guard !candidates.isEmpty else { return nil }
    if candidates.count == 1 { return candidates.removeFirst() }
    var eligible: [Int] = []
    eligible.reserveCapacity(candidates.count)
    var sawMain = false
    for (index, entry) in candidates.enumerated() {
      if entry.job.isMainActor {
        if sawMain { continue }
        sawMain = true
      }
      eligible.append(index)
    }
    guard eligible.count > 1 else { return candidates.remove(at: eligible[0]) }
    let tasks = eligible.map { candidates[$0].task }
    let picked = picker!.pick(among: tasks, previous: trace.steps.last?.task ?? 0)
    return candidates.remove(at: eligible[min(max(picked, 0), eligible.count - 1)])
  }

  /// The drain thread stopped waiting for outside jobs.
  mutating func stopWaiting() { drainWaiting = false }

  /// The shell reported a deadlock: from now on pending failure bounds fire when nothing else
  /// can run, so that waits that ignore cancellation end with their timeout error.
  mutating func markDeadlockReported() { deadlockReported = true }

  mutating func markBodyFinished() { bodyFinished = true }

  // MARK: Events of the running task

  /// The running task waits at a Lockstep primitive for `what`. Returns whether exploration
  /// injects a cancellation here: the caller then cancels the running task.
  mutating func noteWait(for what: String, byTask id: UInt64?) -> Bool {
    guard let task = eventTask(id), task != 0 else { return false }
    records[task - 1].waitingOn = what
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .waits(what)))
    // The body is the test itself: cancelling it would only fail the test.
    guard task != 1 else { return false }
    defer { suspensions += 1 }
    guard suspensions == cancelAtSuspension else { return false }
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .cancelled))
    return true
  }

  /// The running task finished (a task of a `TestTaskFactory`, or the body).
  mutating func noteFinished(byTask id: UInt64?) {
    guard let task = eventTask(id), task != 0 else { return }
    records[task - 1].finished = true
    trace.events.append(SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .finished))
  }

  /// A note from the code under test or a Lockstep primitive, about what the running task did.
  mutating func note(_ text: String, byTask id: UInt64?) {
    guard let task = eventTask(id) else { return }
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .note(text)))
  }

  /// The number of the task an event comes from: the current task when the runtime tells it
  /// (work an actor's job runs for a task), else the task of the running job.
  private func eventTask(_ id: UInt64?) -> Int? {
    guard runningTask != nil else { return nil }
    if let id, let number = numbers[id] { return number }
    return runningTask
  }

  /// Records the name of a task the scheduler saw running.
  mutating func recordName(_ name: String, forTask id: UInt64) {
    guard let number = numbers[id], records[number - 1].name == nil else { return }
    records[number - 1].name = name
    trace.taskNames[number] = name
  }

  func hasName(forTask id: UInt64) -> Bool {
    numbers[id].map { records[$0 - 1].name != nil } ?? false
  }

  // MARK: Failure bounds

  struct TimerKey: Comparable {
    let deadline: Duration
    let id: UInt64
    /// Whether firing it wakes sleepers (it counts as a sleeper), rather than failing a wait.
    let wakes: Bool
    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id) }
  }

  /// Starts a failure bound that fires `action` after `delay` of virtual time; `nil` when the run
  /// is over (the caller uses a real-time bound instead).
  mutating func startTimer(
    after delay: Duration, wakes: Bool = false, _ action: @escaping @Sendable () -> Void
  ) -> UInt64? {
    guard phase == .running else { return nil }
    timerSequence += 1
    timers.insert(TimerKey(deadline: time.now + max(delay, .zero), id: timerSequence, wakes: wakes))
    timerActions[timerSequence] = action
    if wakes { wakeTimers.insert(timerSequence) }
    return timerSequence
  }

  /// Removes a timer, returning its action if it had not fired yet.
  mutating func removeTimer(_ id: UInt64) -> (@Sendable () -> Void)? {
    wakeTimers.remove(id)
    return timerActions.removeValue(forKey: id)
  }

  /// The failure bounds still pending when the run ends, with their remaining delay.
  mutating func removeAllTimers() -> [(id: UInt64, remaining: Duration)] {
    var pending: [(UInt64, Duration)] = []
    while let timer = timers.popMin() {
      if timerActions[timer.id] != nil { pending.append((timer.id, timer.deadline - time.now)) }
    }
    return pending
  }

  /// Ends the run: returns the jobs left behind, with their remaining virtual delay.
  mutating func finish() -> [(job: Job, remaining: Duration)] {
    phase = .finished
    let waiting = (ready.removeAll() + candidates).map { (job: $0.job, remaining: Duration.zero) }
    candidates.removeAll()
    return waiting + time.removeAll().map { (job: $0.job.job, remaining: $0.remaining) }
  }

  /// Ends a run that cannot finish: every job still held, and every job that arrives later, is
  /// kept and never run.
  mutating func quarantineAll() {
    phase = .quarantined
    quarantine += (ready.removeAll() + candidates).map(\.job)
    candidates.removeAll()
    quarantine += time.removeAll().map(\.job.job)
  }

  /// The tasks of the run, the body first, for a deadlock report.
  func taskDescriptions() -> [String] {
    var lines: [String] = []
    if let body = records.first {
      lines.append(body.describe(isBody: true))
    } else if !bodyFinished {
      lines.append("the body, which never ran")
    }
    let others = records.dropFirst()
    let limit = 50
    lines += others.prefix(limit).map { $0.describe(isBody: false) }
    if others.count > limit { lines.append("… and \(others.count - limit) more") }
    return lines
  }
}

/// The drain thread's run, kept in thread-local storage: every job enqueued on that thread belongs
/// to the run.
enum DrainThread {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
    private static let key: pthread_key_t = {
      var key = pthread_key_t()
      pthread_key_create(&key, nil)
      return key
    }()

    /// The run whose jobs this thread drains, if any.
    static var current: DeterministicRun? {
      guard let pointer = pthread_getspecific(key) else { return nil }
      return Unmanaged<DeterministicRun>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` with `run` as this thread's run; the run must outlive the call.
    static func with<T>(_ run: DeterministicRun, _ body: () throws -> T) rethrows -> T {
      let previous = pthread_getspecific(key)
      pthread_setspecific(key, Unmanaged.passUnretained(run).toOpaque())
      defer { pthread_setspecific(key, previous) }
      return try body()
    }

    static let isSupported = true
  #else
    static var current: DeterministicRun? { nil }
    static func with<T>(_ run: DeterministicRun, _ body: () throws -> T) rethrows -> T {
      try body()
    }
    static let isSupported = false
  #endif
}

/// The runs in progress and the tasks of quarantined runs, so that a job of one of their tasks
/// that another thread enqueues (a continuation resumed by real I/O, for example) goes to its run.
///
/// Every job enqueued outside a drain thread asks here, so the lookup stays O(1): runs in progress
/// are at most one at a time, and quarantined runs are indexed by task id.
enum ActiveRuns {
  private struct Registry {
    var running: [DeterministicRun] = []
    var quarantined: [UInt64: DeterministicRun] = [:]
  }
  private static let registry = Locked(Registry())

  static func add(_ run: DeterministicRun) { registry.withLock { $0.running.append(run) } }

  static func remove(_ run: DeterministicRun) {
    registry.withLock { $0.running.removeAll { $0 === run } }
  }

  /// Keeps routing the jobs of `taskIDs` to `run`, which holds them for good.
  static func quarantine(_ run: DeterministicRun, taskIDs: [UInt64]) {
    registry.withLock { registry in
      registry.running.removeAll { $0 === run }
      for id in taskIDs { registry.quarantined[id] = run }
    }
  }

  /// The run that owns the task, if any.
  static func owner(ofTask id: UInt64) -> DeterministicRun? {
    registry.withLock { registry in
      if let run = registry.quarantined[id] { return run }
      return registry.running.first { run in run.state.withLock { $0.owns(taskID: id) } }
    }
  }
}

/// A failure bound in a run's virtual time; cancelling removes it.
private struct RunTimer: CancellableTask {
  let run: DeterministicRun
  let id: UInt64
  func cancel() { _ = run.state.withLock { $0.removeTimer(id) } }
}

/// Tells the deterministic run of this thread, if any, that the running task is about to wait at a
/// Lockstep primitive for `what` (for timelines and deadlock reports). When exploration injects a
/// cancellation at this wait, cancels the running task and returns `true`; the caller's
/// cancellation handling then ends the wait.
func noteLockstepWait(for what: @autoclosure () -> String) -> Bool {
  guard let run = DrainThread.current, run.noteWait(for: what()) else { return false }
  withUnsafeCurrentTask { $0?.cancel() }
  return true
}

/// Tells the deterministic run of this thread, if any, that the running task is finishing.
func noteTaskFinished() {
  DrainThread.current?.noteFinished()
}

/// Adds a note to the timeline of the deterministic run of this thread, if any.
func noteInTimeline(_ text: @autoclosure () -> String) {
  DrainThread.current?.note(text())
}

/// Where a job enqueued right now belongs: to the run drained by this thread, to the run that owns
/// its task, or (nil) to the platform executors.
func routedRun(forTask taskID: UInt64?) -> DeterministicRun? {
  if let run = DrainThread.current { return run }
  guard let taskID else { return nil }
  return ActiveRuns.owner(ofTask: taskID)
}

/// How a drain ended.
enum DrainOutcome {
  case finished(SchedulerTrace)
  case deadlock(DeterministicDeadlock)
  case timedOut(SchedulerTrace)
  /// The run executed its step limit without the body finishing (exploration only).
  case tooManySteps(SchedulerTrace)
}

/// One deterministic run: the locking shell around ``SchedulerState`` and the drain loop that runs
/// its jobs one at a time on the current thread.
final class DeterministicRun: @unchecked Sendable {
  let site: CallSite
  let gracePeriod: Duration
  let timeout: Duration
  let state: Locked<SchedulerState<ScheduledJob>>
  private let wakeup = DispatchSemaphore(value: 0)
  /// Cancels the body task; set before draining.
  var cancelBody: (@Sendable () -> Void)?
  /// Called when the run quarantines its tasks; set before draining.
  var onQuarantine: (@Sendable () -> Void)?
  /// The task whose job the drain thread is running. Drain thread only.
  private var runningTaskID: UInt64?
  /// Whether the running task's name was looked up already. Drain thread only.
  private var runningNameChecked = false

  /// The most jobs the run may execute before it is stopped.
  let stepLimit: Int

  init(seed: UInt64?, timeout: Duration, gracePeriod: Duration, site: CallSite) {
    self.site = site
    self.timeout = timeout
    self.gracePeriod = gracePeriod
    stepLimit = .max
    state = Locked(SchedulerState(seed: seed))
  }

  /// A run whose order `picker` chooses, for exploration.
  init(
    picker: any SchedulePicker, cancelAtSuspension: Int?, stepLimit: Int, timeout: Duration,
    site: CallSite
  ) {
    self.site = site
    self.timeout = timeout
    self.gracePeriod = .zero
    self.stepLimit = stepLimit
    state = Locked(SchedulerState(picker: picker, cancelAtSuspension: cancelAtSuspension))
  }

  /// Takes a ready job (from any thread).
  func enqueue(_ job: ScheduledJob) {
    admitted(job, state.withLock { $0.enqueue(job) }, remaining: .zero)
  }

  /// Takes a job that becomes ready after `delay` of virtual time (from any thread).
  func schedule(_ job: ScheduledJob, after delay: Duration) {
    admitted(job, state.withLock { $0.schedule(job, after: delay) }, remaining: delay)
  }

  private func admitted(
    _ job: ScheduledJob, _ admission: SchedulerState<ScheduledJob>.Admission, remaining: Duration
  ) {
    switch admission {
    case .accepted(let wake): if wake { wakeup.signal() }
    case .forward: RuntimeHooks.forward(job, after: remaining)
    case .quarantined: break
    }
  }

  /// Called when the run receives a job: if this is the drain thread, remembers the name of the
  /// task whose job is running.
  func noteRunningTaskNameIfDraining() {
    guard DrainThread.current === self, !runningNameChecked, let id = runningTaskID else { return }
    runningNameChecked = true
    recordNameIfMissing(forTask: id)
  }

  /// Records the current task's name as the name of task `id`, unless the run knows it already.
  private func recordNameIfMissing(forTask id: UInt64) {
    guard !state.withLock({ $0.hasName(forTask: id) }), let name = RuntimeHooks.currentTaskName()
    else { return }
    state.withLock { $0.recordName(name, forTask: id) }
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

  /// The running task finished. Drain thread only.
  func noteFinished() {
    let id = currentTaskRecordingName()
    state.withLock { $0.noteFinished(byTask: id) }
  }

  /// The running task waits at a Lockstep primitive; returns whether to cancel it now.
  /// Drain thread only.
  func noteWait(for what: String) -> Bool {
    let id = currentTaskRecordingName()
    return state.withLock { $0.noteWait(for: what, byTask: id) }
  }

  /// Runs the run's jobs on this thread until the body has finished and no job is ready, or
  /// until nothing can make progress.
  func drain() -> DrainOutcome {
    ActiveRuns.add(self)
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var report: DeterministicDeadlock?
    var timedOut = false
    var tooManySteps = false
    var jobsSinceCheck = 0
    var steps = 0
    DrainThread.with(self) {
      loop: while true {
        switch state.withLock({ $0.next() }) {
        case .run(let job):
          runningTaskID = job.taskID
          runningNameChecked = false
          RuntimeHooks.run(job)
          runningTaskID = nil
          steps += 1
          if steps >= stepLimit {
            tooManySteps = true
            break loop
          }
          jobsSinceCheck += 1
          if jobsSinceCheck >= 4096 {
            jobsSinceCheck = 0
            if clock.now >= deadline {
              timedOut = true
              break loop
            }
          }
        case .fire(let action):
          action()
        case .finished:
          break loop
        case .stuck:
          if waitForOutsideJob(until: deadline, clock: clock) { continue }
          state.withLock { $0.stopWaiting() }
          if clock.now >= deadline && gracePeriod > .zero {
            timedOut = true
            break loop
          }
          if report == nil {
            // Cancel the body once: cancellable waits (Lockstep's primitives, sleeps) unwind.
            report = makeReport(quarantined: false)
            state.withLock { $0.markDeadlockReported() }
            cancelBody?()
            continue
          }
          report = makeReport(quarantined: true)
          break loop
        }
      }
    }
    if timedOut || tooManySteps || report?.quarantined == true {
      let taskIDs = state.withLock { state in
        state.quarantineAll()
        return state.taskIDs
      }
      ActiveRuns.quarantine(self, taskIDs: taskIDs)
      onQuarantine?()
      let trace = state.withLock { $0.trace }
      if timedOut { return .timedOut(trace) }
      if tooManySteps { return .tooManySteps(trace) }
      return .deadlock(report!)
    }
    ActiveRuns.remove(self)
    let (leftovers, timers) = state.withLock { ($0.finish(), $0.removeAllTimers()) }
    for (job, remaining) in leftovers { RuntimeHooks.forward(job, after: remaining) }
    // A wait still pending after the run keeps its failure bound, now in real time.
    for (id, remaining) in timers {
      _ = Timeouts.startInRealTime(after: remaining) { [self] in
        state.withLock { $0.removeTimer(id) }?()
      }
    }
    if let report { return .deadlock(report) }
    return .finished(state.withLock { $0.trace })
  }

  private func waitForOutsideJob(until deadline: ContinuousClock.Instant, clock: ContinuousClock)
    -> Bool
  {
    guard gracePeriod > .zero else { return false }
    let limit = min(deadline, clock.now + gracePeriod)
    let remaining = clock.now.duration(to: limit)
    guard remaining > .zero else { return false }
    let nanoseconds =
      remaining.components.seconds * 1_000_000_000
      + remaining.components.attoseconds / 1_000_000_000
    if wakeup.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success { return true }
    // Timed out; a job may have arrived just now.
    return state.withLock { $0.readyCount > 0 }
  }

  private func makeReport(quarantined: Bool) -> DeterministicDeadlock {
    state.withLock { state in
      DeterministicDeadlock(
        site: site, tasks: state.taskDescriptions(), virtualTime: state.now, trace: state.trace,
        quarantined: quarantined)
    }
  }
}
