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
/// trace, and what is known about the run's tasks.
struct SchedulerState<Job: SchedulableJob> {
  enum Phase: Equatable { case running, finished, quarantined }

  /// What the drain loop does next.
  enum Step {
    case run(Job)
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

  private var ready: ReadyQueue<Job>
  private var time = VirtualTime<Job>()
  private(set) var trace = SchedulerTrace()
  private var tasks: [UInt64: TaskRecord] = [:]
  private(set) var bodyTaskID: UInt64?
  private var sawFirstJob = false
  private(set) var bodyFinished = false
  private(set) var phase = Phase.running
  /// Whether the drain thread is blocked waiting for a job from outside the run.
  private var drainWaiting = false
  private(set) var quarantine: [Job] = []

  init(seed: UInt64?) {
    ready = ReadyQueue(seed: seed)
  }

  var readyCount: Int { ready.count }
  var sleeperCount: Int { time.sleeperCount }
  var now: Duration { time.now }

  /// Whether the task has run in this run, so its jobs from other threads belong here.
  func owns(taskID: UInt64) -> Bool { tasks[taskID] != nil }

  mutating func enqueue(_ job: Job) -> Admission {
    admit(job) { $0.ready.append(job) }
  }

  mutating func schedule(_ job: Job, after delay: Duration) -> Admission {
    admit(job) { $0.time.schedule(job, after: delay) }
  }

  private mutating func admit(_ job: Job, _ store: (inout Self) -> Void) -> Admission {
    switch phase {
    case .finished: return .forward
    case .quarantined:
      quarantine.append(job)
      return .quarantined
    case .running:
      if !sawFirstJob {
        sawFirstJob = true
        bodyTaskID = job.taskID
      }
      store(&self)
      defer { drainWaiting = false }
      return .accepted(wake: drainWaiting)
    }
  }

  /// Picks the next job: a ready one if any; otherwise, while the body runs, the earliest sleeper
  /// (advancing virtual time). Records the step in the trace.
  mutating func next() -> Step {
    var woke = false
    var job = ready.next()
    if job == nil && !bodyFinished {
      job = time.advanceToNext()
      woke = job != nil
    }
    guard let job else {
      if bodyFinished { return .finished }
      drainWaiting = true
      return .stuck
    }
    var number: Int?
    if let id = job.taskID {
      var record = tasks[id] ?? TaskRecord(number: tasks.count + 1)
      record.jobsRun += 1
      record.lastStep = trace.steps.count
      record.lastOnMainActor = job.isMainActor
      tasks[id] = record
      number = record.number
    }
    trace.steps.append(
      SchedulerTrace.Step(
        task: number, isMainActor: job.isMainActor, time: time.now, wokeFromSleep: woke))
    return .run(job)
  }

  /// The drain thread stopped waiting for outside jobs.
  mutating func stopWaiting() { drainWaiting = false }

  mutating func markBodyFinished() { bodyFinished = true }

  /// Records the name of a task the scheduler saw running.
  mutating func recordName(_ name: String, forTask id: UInt64) {
    guard var record = tasks[id], record.name == nil else { return }
    record.name = name
    tasks[id] = record
    trace.taskNames[record.number] = name
  }

  func hasName(forTask id: UInt64) -> Bool { tasks[id]?.name != nil }

  /// Ends the run: returns the sleepers left behind, with their remaining virtual delay.
  mutating func finish() -> [(job: Job, remaining: Duration)] {
    phase = .finished
    let leftovers = ready.removeAll().map { (job: $0, remaining: Duration.zero) }
    return leftovers + time.removeAll()
  }

  /// Ends a run that cannot finish: every job still held, and every job that arrives later, is
  /// kept and never run.
  mutating func quarantineAll() {
    phase = .quarantined
    quarantine += ready.removeAll()
    quarantine += time.removeAll().map(\.job)
  }

  /// The tasks of the run, the body first, for a deadlock report.
  func taskDescriptions() -> [String] {
    let body = bodyTaskID.flatMap { tasks[$0] }
    var lines: [String] = []
    if let body {
      lines.append(body.describe(isBody: true))
    } else if !bodyFinished {
      lines.append("the body, which never ran")
    }
    let others = tasks.values.filter { $0.number != body?.number }.sorted { $0.number < $1.number }
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

/// The runs in progress (and the quarantined ones), so that a job of one of their tasks that
/// another thread enqueues (a continuation resumed by real I/O, for example) goes to its run.
enum ActiveRuns {
  private static let runs = Locked<[DeterministicRun]>([])

  static func add(_ run: DeterministicRun) { runs.withLock { $0.append(run) } }

  static func remove(_ run: DeterministicRun) {
    runs.withLock { $0.removeAll { $0 === run } }
  }

  /// The run that owns the task, if any.
  static func owner(ofTask id: UInt64) -> DeterministicRun? {
    runs.withLock { runs in
      guard !runs.isEmpty else { return nil }
      return runs.first { run in run.state.withLock { $0.owns(taskID: id) } }
    }
  }
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
  /// The task whose job the drain thread is running. Drain thread only.
  private var runningTaskID: UInt64?
  /// Whether the running task's name was looked up already. Drain thread only.
  private var runningNameChecked = false

  init(seed: UInt64?, timeout: Duration, gracePeriod: Duration, site: CallSite) {
    self.site = site
    self.timeout = timeout
    self.gracePeriod = gracePeriod
    state = Locked(SchedulerState(seed: seed))
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
    guard !state.withLock({ $0.hasName(forTask: id) }), let name = RuntimeHooks.currentTaskName()
    else { return }
    state.withLock { $0.recordName(name, forTask: id) }
  }

  func markBodyFinished() { state.withLock { $0.markBodyFinished() } }

  /// Runs the run's jobs on this thread until the body has finished and no job is ready, or
  /// until nothing can make progress.
  func drain() -> DrainOutcome {
    ActiveRuns.add(self)
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var report: DeterministicDeadlock?
    var timedOut = false
    var jobsSinceCheck = 0
    DrainThread.with(self) {
      loop: while true {
        switch state.withLock({ $0.next() }) {
        case .run(let job):
          runningTaskID = job.taskID
          runningNameChecked = false
          RuntimeHooks.run(job)
          runningTaskID = nil
          jobsSinceCheck += 1
          if jobsSinceCheck >= 4096 {
            jobsSinceCheck = 0
            if clock.now >= deadline {
              timedOut = true
              break loop
            }
          }
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
            cancelBody?()
            continue
          }
          report = makeReport(quarantined: true)
          break loop
        }
      }
    }
    if timedOut || report?.quarantined == true {
      state.withLock { $0.quarantineAll() }
      return timedOut ? .timedOut(state.withLock { $0.trace }) : .deadlock(report!)
    }
    ActiveRuns.remove(self)
    let leftovers = state.withLock { $0.finish() }
    for (job, remaining) in leftovers { RuntimeHooks.forward(job, after: remaining) }
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
