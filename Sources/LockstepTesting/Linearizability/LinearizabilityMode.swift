/// How ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``
/// runs its scenarios: explored under the deterministic scheduler, with an
/// ``ExplorationStrategy``, or many times on real threads, with ``StressMode``.
///
/// ```swift
/// await checkLinearizability(.pct(schedules: 200, depth: 2), of: { Counter() }, operations: operations)
/// await checkLinearizability(.stress(runs: 1_000), of: { Seats() }, operations: operations)
/// ```
///
/// The mode decides what the check returns: a ``LinearizabilityResult``, whose failure has a
/// timeline and a replay token, or a ``LinearizabilityStressResult``, whose failure counts the runs
/// that failed. Lockstep's two modes are the only ones.
public protocol LinearizabilityMode: Sendable {
  /// What a check in this mode returns.
  associatedtype CheckResult: Sendable

  /// Runs `check` in this mode.
  nonisolated(nonsending) func _check(_ check: some _LinearizabilityCheck) async -> CheckResult
}

/// One `checkLinearizability` call, as a mode runs it: Lockstep's own, built by the call.
public protocol _LinearizabilityCheck: Sendable {
  /// Explores the scenarios under the deterministic scheduler.
  nonisolated(nonsending) func _explore(_ strategy: ExplorationStrategy) async -> LinearizabilityResult
  /// Runs the scenarios on real threads.
  nonisolated(nonsending) func _stress(_ mode: StressMode) async -> LinearizabilityStressResult
}
