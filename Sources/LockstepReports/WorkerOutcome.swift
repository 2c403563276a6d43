/// How one `lockstep-explore` worker ended: each run of the test executable it made, and how that
/// run's process ended. Pure, like ``WorkerPlan``: the processes are read elsewhere.
///
/// ```swift
/// let run = TestPasses.Run(library: "Swift Testing", arguments: ["--testing-library", "swift-testing"])
/// let outcome = WorkerOutcome(shard: .init(index: 2, count: 2), ended: [(run, .signaled(11))])
/// print(outcome.failed, outcome.failure!.termination)   // true was killed by signal 11 (SIGSEGV)
/// ```
public struct WorkerOutcome: Sendable, CustomStringConvertible {
  /// How a process ended.
  public enum Termination: Sendable, Equatable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal killed it (a crash: `SIGSEGV`, `SIGILL`, `SIGTRAP`; or `SIGKILL`, `SIGTERM`).
    case signaled(Int32)

    /// `exited with status 1`, `was killed by signal 11 (SIGSEGV)`.
    public var description: String {
      switch self {
      case .exited(let status): return "exited with status \(status)"
      case .signaled(let signal):
        return "was killed by signal \(signal)" + (Self.signalNames[signal].map { " (\($0))" } ?? "")
      }
    }

    private static let signalNames: [Int32: String] = [
      1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
      8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM",
    ]
  }

  /// The worker's shard.
  public let shard: ExplorationSummary.Shard
  /// Each run it made, in order, and how it ended.
  public let ended: [(run: TestPasses.Run, termination: Termination)]

  /// A worker that made the runs `ended`.
  public init(shard: ExplorationSummary.Shard, ended: [(run: TestPasses.Run, termination: Termination)]) {
    self.shard = shard
    self.ended = ended
  }

  /// The first run that failed: one killed by a signal, or one that exited non-zero for another
  /// reason than finding no test.
  public var failure: (run: TestPasses.Run, termination: Termination)? {
    ended.first { run, termination in termination != .exited(0) && !run.foundNoTest(termination) }
  }

  /// Whether a run failed.
  public var failed: Bool { failure != nil }

  /// Whether a run was killed by a signal.
  public var crashed: Bool {
    if case .signaled = failure?.termination { return true }
    return false
  }

  /// `worker 2/4: its Swift Testing run was killed by signal 11 (SIGSEGV) (it crashed or was
  /// stopped: …)`, or `worker 2/4: passed`.
  public var description: String {
    guard let (run, termination) = failure else { return "worker \(shard): passed" }
    let which = run.library.map { "its \($0) run" } ?? "the test executable"
    let hint: String
    switch termination {
    case .exited(1): hint = " (a test failed: see its output above)"
    case .exited: hint = ""
    case .signaled: hint = " (it crashed or was stopped: see its output above)"
    }
    return "worker \(shard): \(which) \(termination)\(hint)"
  }

  /// `lockstep-explore`'s exit status: 0 only when every worker passed and the merged verdict
  /// did; 1 when a worker failed or the verdict did; 2 when no summary was written but every
  /// worker passed (nothing was explored at CI scale: a filter that matched nothing, say).
  public static func exitStatus(_ outcomes: [WorkerOutcome], merge: SummaryMerge) -> Int32 {
    if outcomes.contains(where: \.failed) { return 1 }
    return merge.exitStatus
  }
}
