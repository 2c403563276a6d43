/// Every kind of run the process makes, and how each is built: the one place a
/// ``DeterministicRun`` is made. Each is then performed inside ``RunLifecycle``.
enum RunRecipe {
  /// A test's run: ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
  /// its blocking forms and the `.deterministic` trait. `nil` seed: first in, first out.
  case test(seed: UInt64?, timeout: Duration, gracePeriod: Duration)
  /// One schedule of an exploration, in the order `picker` chooses.
  case schedule(Schedule)
  /// The process's warm-up before its first run that reads the real clocks
  /// (``RunLifecycle``): real clocks, first in, first out.
  case warmUp
  /// A linearizability check's object called alone, one call at a time, to learn what it returns
  /// (``SequentialReplays``).
  case sequentialReplay(timeout: Duration)

  /// What one schedule of an exploration sets.
  struct Schedule {
    var picker: CrashTrailPicker
    var cancelAtWait: Int?
    var stepLimit: Int
    var stopBeforeStep: Int?
    var crashTrail: CrashReport.Trail
    var timeout: Duration
    var gracePeriod: Duration
    /// An empty trace whose buffers the run reuses: the trace of the schedule before.
    var trace: SchedulerTrace?
  }

  /// The run, started at `site`.
  func make(at site: CallSite) -> DeterministicRun {
    switch self {
    case .test(let seed, let timeout, let gracePeriod):
      if seed != nil { HashingDeterminism.warnOnceIfNotDeterministic(at: site) }
      return DeterministicRun(
        order: seed.map { .seeded($0) } ?? .fifo, timeout: timeout, gracePeriod: gracePeriod,
        site: site)
    case .schedule(let schedule):
      return DeterministicRun(
        order: .picked(schedule.picker), cancelAtWait: schedule.cancelAtWait,
        stepLimit: schedule.stepLimit, stopBeforeStep: schedule.stopBeforeStep,
        crashTrail: schedule.crashTrail, timeout: schedule.timeout,
        gracePeriod: schedule.gracePeriod, site: site, trace: schedule.trace)
    case .warmUp:
      return DeterministicRun(order: .fifo, timeout: .seconds(60), site: site, virtualNow: false)
    case .sequentialReplay(let timeout):
      return DeterministicRun(order: .fifo, timeout: timeout, site: site)
    }
  }
}
