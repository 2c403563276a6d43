/// How ``checkLinearizability(_:scenarios:condition:timeout:fileID:filePath:line:column:of:operations:invariant:)``
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
/// It is not an ``ExplorationStrategy``: `explore` has no stress mode, and a stress check has no
/// schedules, timeline or replay token. See
/// <doc:CheckingAnActorUnderConcurrentCalls#Stress-mode-on-real-threads>.
public struct StressMode: Sendable, Equatable, CustomStringConvertible {
  /// How many times each scenario runs, each time on a fresh object.
  public let runs: Int

  /// Runs each scenario `runs` times on real threads.
  ///
  /// `LOCKSTEP_STRESS_COUNT`, when set, replaces `runs` for every check, as it replaces the
  /// `times:` of ``stress(times:fileID:filePath:line:column:_:)``.
  ///
  /// - Parameter runs: How many runs of each scenario; at least 1.
  public static func stress(runs: Int = 1_000) -> Self { Self(runs: runs) }

  /// `stress(runs: 1,000)`.
  public var description: String { "stress(runs: \(runs.grouped))" }
}
