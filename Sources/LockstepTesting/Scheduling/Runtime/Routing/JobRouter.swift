/// Which run a piece of work belongs to, decided in one place: every job the executors receive,
/// every sleep, every task the runtime creates, every main-queue block and every executor switch
/// of a quarantined run's task goes through ``runToAsk(_:drained:owner:)`` (which run, if any, may
/// own it) and then ``route(_:in:actingTask:)`` (what that run does with it). Both are pure; the
/// table in `JobRouterTests` lists the cases. The shells only report facts and apply the answer:
/// the executors (`LockstepExecutors.swift`), ``ActiveRuns``, ``TaskCreationHook`` and
/// ``QuarantineTrap``, ``MainQueueHandOff`` (the stand-in, `MainQueue.c`, reports the run the
/// thread works for). This is invariant “One owner” in CONTRIBUTING.
///
/// The rules, in the order they apply:
/// 1. Work that arrives on a thread draining a run is that run's to judge
///    (``DrainingRun/current``) — unless its task existed before the run began (runtime task ids
///    grow, so a smaller id than the body's is older than the run: the test's own task, resumed
///    by the run but going on outside it).
/// 2. Off a drain thread, a job of a task goes to the run that owns the task (a continuation
///    resumed by real I/O, a quarantined run's task); on a thread that runs a run's outside work
///    (a block its job queued, a thread it started), a job of a task no run owns is that run's to
///    judge, and a task created there is that run's (`Task { }` in a completion handler); a
///    sleep and a main-queue block belong to no run; a task created on any other thread is an
///    outsider of every run in progress.
/// 3. A run that ended lets everything go to the platform; a quarantined run holds the jobs of its
///    own tasks and of no task (actor jobs, which the quarantine runs to free the actors), and lets
///    every other task go on outside it.
/// 4. A run in progress takes the jobs of its own tasks and of no task (actor jobs, yields), and
///    registers a task it does not know yet — unless that task, or the task whose work the drain
///    thread runs inside an actor's job (``actingTask(current:runningJob:drainer:inJob:)``), is an
///    outsider: older than the run, or created outside it while it was in progress.
enum JobRouter {
  /// The work to route.
  enum Work: Equatable, Sendable {
    /// A ready job of task `task`; `nil` for a job of no task (an actor's job, a yield's).
    case job(task: UInt64?)
    /// A sleep of the current task `task` (`nil` when no task runs).
    case sleep(task: UInt64?)
    /// The runtime created task `task`.
    case taskCreation(task: UInt64)
    /// A block queued on the main queue.
    case mainQueueBlock
    /// Task `task` switches executors while an actor job of the run runs (the quarantine frees
    /// the run's actors: a task of the run is held there).
    case taskSwitch(task: UInt64)

    var task: UInt64? {
      switch self {
      case .job(let task), .sleep(let task): task
      case .taskCreation(let task), .taskSwitch(let task): task
      case .mainQueueBlock: nil
      }
    }
  }

  /// Which run is asked about a piece of work.
  enum Candidate<Run> {
    /// The work is `run`'s to judge (``route(_:in:actingTask:)``).
    case run(Run)
    /// No run: the platform's executors take it.
    case none
    /// A task created off every drain thread and outside work: every run in progress counts it
    /// as an outsider.
    case outsiderOfEveryRun
  }

  /// What a run answers.
  enum Route: Equatable, Sendable {
    /// Not the run's: the platform's executors (in real time); for a creation, the task is an
    /// outsider of the run.
    case platform
    /// The run's, as a job of its task `task` (0: a job of no task, or work of no task): it stores
    /// the job (a sleep in virtual time), records the creation.
    case run(task: Int)
    /// The run's, and its task is new to the run: the run registers it as one of its own.
    case runRegistering
    /// The run is quarantined: it holds the job for good.
    case held
  }

  /// What ``route(_:in:actingTask:)`` reads of the run asked (``RunState`` in a run).
  protocol RunView {
    var phase: RunPhase { get }
    /// The runtime id of the run's first task; `nil` before it reached the run.
    var bodyTaskID: UInt64? { get }
    /// The run-local number of task `id`, if it reached the run.
    func number(ofTask id: UInt64) -> Int?
    /// Whether task `id` was created outside the run while it was in progress.
    func createdOutside(task id: UInt64) -> Bool
  }

  /// Which run to ask about `work`: `drained` is the run this thread drains and its body's task
  /// id (0 before the body exists), `outsideWorkOf` finds the run whose outside work the thread
  /// runs (asked only when no run owns the task), `owner` finds the run that owns a task.
  static func runToAsk<Run>(
    _ work: Work, drained: (run: Run, bodyTaskID: UInt64)?, outsideWorkOf outside: () -> Run? = { nil },
    owner: (UInt64) -> Run?
  ) -> Candidate<Run> {
    if let drained {
      if let task = work.task, task < drained.bodyTaskID { return .none }
      return .run(drained.run)
    }
    switch work {
    case .job(let task?): return owner(task).map(Candidate.run) ?? outside().map(Candidate.run) ?? .none
    case .taskCreation: return outside().map(Candidate.run) ?? .outsiderOfEveryRun
    case .job(nil), .sleep, .mainQueueBlock, .taskSwitch: return .none
    }
  }

  /// What the run `run` does with `work`. `actingTask` gives the task whose work the drain thread
  /// runs inside an actor's job, if any (``actingTask(current:runningJob:drainer:inJob:)``); it is
  /// asked only about a task the run does not know yet.
  static func route(_ work: Work, in run: some RunView, actingTask: () -> UInt64? = { nil }) -> Route {
    switch run.phase {
    case .finished: return .platform
    case .quarantined:
      switch work {
      case .taskCreation, .mainQueueBlock: return .platform
      case .job(nil), .sleep(nil): return .held
      case .job(let task?), .sleep(let task?), .taskSwitch(let task):
        return run.number(ofTask: task) != nil ? .held : .platform
      }
    case .running: break
    }
    guard let task = work.task else { return .run(task: 0) }
    if case .taskSwitch = work { return run.number(ofTask: task).map { .run(task: $0) } ?? .platform }
    if let known = run.number(ofTask: task) { return .run(task: known) }
    if isOutsider(task, of: run) { return .platform }
    if let acting = actingTask(), isOutsider(acting, of: run) { return .platform }
    return .runRegistering
  }

  /// The task whose work an actor's job of a run runs on the drain thread: the current task, when
  /// a job is running and the current task is neither the job's own nor the task that drains the
  /// run inline (which stays the current task under jobs that set none).
  static func actingTask(current: UInt64?, runningJob: UInt64?, drainer: UInt64?, inJob: Bool)
    -> UInt64?
  {
    guard inJob, let current, current != runningJob, current != drainer else { return nil }
    return current
  }

  /// Whether task `id`, unknown to the run, is an outsider: older than the run, or created outside
  /// it while it was in progress.
  private static func isOutsider(_ id: UInt64, of run: some RunView) -> Bool {
    guard let body = run.bodyTaskID else { return false }
    return id < body || run.createdOutside(task: id)
  }
}

/// Where a run is in its life, for routing: in progress, ended, or quarantined for good.
enum RunPhase: Equatable, Sendable { case running, finished, quarantined }
