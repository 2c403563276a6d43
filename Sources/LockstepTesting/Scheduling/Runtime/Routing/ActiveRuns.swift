/// The runs in progress and the tasks of quarantined runs, so that a job of one of their tasks
/// that another thread enqueues (a continuation resumed by real I/O, for example) goes to its run.
///
/// Every job enqueued outside a drain thread asks here: runs in progress are few (one per test
/// running at the same time), and quarantined runs are indexed by task id.
enum ActiveRuns {
  private struct Registry {
    var running: [DeterministicRun] = []
    var quarantined: [UInt64: DeterministicRun] = [:]

    /// Takes `run` off the runs in progress; the last one to end stops the watch on outside
    /// task creations.
    mutating func removeRunning(_ run: DeterministicRun) {
      running.removeAll { $0 === run }
      if running.isEmpty { TaskCreationHook.watchOutside(false) }
    }
  }
  private static let registry = Locked(Registry())

  static func add(_ run: DeterministicRun) {
    registry.withLock { registry in
      registry.running.append(run)
      if registry.running.count == 1 { TaskCreationHook.watchOutside(true) }
    }
  }

  /// The runs in progress, with their real-time deadlines (for ``RunWatchdog``).
  static var inProgress: [(DeterministicRun, ContinuousClock.Instant)] {
    registry.withLock { registry in registry.running.map { ($0, $0.deadline) } }
  }

  static func remove(_ run: DeterministicRun) {
    registry.withLock { $0.removeRunning(run) }
  }

  /// The runtime created task `id` on a thread that drains no run, while runs are in progress:
  /// an outsider of every run in progress, even when an actor job of a run runs its work — but
  /// for the run whose outside work created it, whose task it is (``JobRouter``'s rule 2; its
  /// first job, enqueued during the creation, already reached that run).
  static func noteCreatedOffEveryDrain(taskID id: UInt64) {
    let work = JobRouter.Work.taskCreation(task: id)
    let creator: DeterministicRun?
    let candidate = JobRouter.runToAsk(
      work, drained: nil, outsideWorkOf: { OutsideWorkTracking.runOfThisThread }, owner: { _ in nil })
    switch candidate {
    case .none: return
    case .outsiderOfEveryRun: creator = nil
    case .run(let run): creator = run
    }
    registry.withLock { registry in
      for run in registry.running where run !== creator {
        run.state.withLock { $0.noteCreatedOutside(taskID: id) }
      }
    }
  }

  /// Keeps routing the jobs of `taskIDs` to `run`, which holds them for good.
  static func quarantine(_ run: DeterministicRun, taskIDs: [UInt64]) {
    registry.withLock { registry in
      registry.removeRunning(run)
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

  /// The run to hand `work` that arrives on this thread right now, if any
  /// (``JobRouter/runToAsk(_:drained:owner:)``); the run then routes it itself.
  static func runToAsk(_ work: JobRouter.Work) -> DeterministicRun? {
    let drained = DrainingRun.current.map { (run: $0, bodyTaskID: $0.bodyTaskID) }
    let candidate = JobRouter.runToAsk(
      work, drained: drained, outsideWorkOf: { OutsideWorkTracking.runOfThisThread }, owner: owner(ofTask:))
    switch candidate {
    case .run(let run): return run
    case .none, .outsiderOfEveryRun: return nil
    }
  }
}
