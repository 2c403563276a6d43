/// How ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``
/// runs its scenarios in stress mode: each one many times on real threads, with the normal
/// executors, rather than under the deterministic scheduler.
///
/// ```swift
/// await checkLinearizability(
///   .stress(runs: 10_000), scenarios: .random(1, tasks: 2...2, callsPerTask: 2...2),
///   of: { SeatReservations(seats: 2) },
///   operations: [.call("reserve") { $0.reserve() }])
/// ```
///
/// Like an ``ExplorationStrategy``, it is a ``LinearizabilityMode``; it is not a strategy:
/// `explore` has no stress mode, and a stress check has no schedules, timeline or replay token. See
/// <doc:CheckingAnActorUnderConcurrentCalls#Stress-mode-on-real-threads>.
public struct StressMode: Sendable, Equatable, CustomStringConvertible {
  /// How many runs of each scenario must overlap (two tasks with calls in flight at once), each
  /// run on a fresh object.
  public let runs: Int

  /// Runs each scenario on real threads until `runs` of its runs overlapped: two of the run's
  /// tasks had calls in flight at the same moment. Runs that did not overlap are judged too, but
  /// not counted; a scenario makes at most 20 runs for each one asked for, within the check's
  /// `timeout`, and reports a problem if too few overlapped.
  ///
  /// `LOCKSTEP_STRESS_COUNT`, when set, replaces `runs` for every check, as it replaces the
  /// `times:` of ``stress(times:fileID:filePath:line:column:_:)``.
  ///
  /// - Parameter runs: How many overlapping runs of each scenario; at least 1.
  public static func stress(runs: Int = 1_000) -> Self { Self(runs: runs) }

  /// `stress(runs: 1,000)`.
  public var description: String { "stress(runs: \(runs.grouped))" }
}

extension StressMode: LinearizabilityMode {
  /// A stress check returns what ran and the failure, with how many runs failed.
  public typealias CheckResult = LinearizabilityStressResult

  /// Runs `check` on real threads.
  public nonisolated(nonsending) func _check(_ check: some _LinearizabilityCheck) async
    -> LinearizabilityStressResult
  {
    await check._stress(self)
  }
}

extension LinearizabilityMode where Self == StressMode {
  /// ``StressMode/stress(runs:)``: runs each scenario on real threads until `runs` of its runs
  /// overlapped.
  public static func stress(runs: Int = 1_000) -> Self { StressMode.stress(runs: runs) }
}
