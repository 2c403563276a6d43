/// What ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``
/// did in stress mode: how many scenarios and runs on real threads there were, and the failure if
/// it found one — or the problem that stopped it before it could judge.
///
/// ```swift
/// let result = await checkLinearizability(.stress(runs: 1_000), of: { Seats() }, operations: operations)
/// #expect(result.passed, "\(result)")
/// ```
public struct LinearizabilityStressResult: Sendable, CustomStringConvertible {
  /// How many scenarios ran (shrinking aside).
  public let scenariosRun: Int
  /// How many runs there were, over every scenario (shrinking aside).
  public let runs: Int
  /// How many of them overlapped: two of their tasks had calls in flight at the same moment. A
  /// scenario runs until ``runsPerScenario`` of its runs overlap.
  public let overlappingRuns: Int
  /// How many overlapping runs each scenario was to make.
  public let runsPerScenario: Int
  /// The failure, shrunk; `nil` when every run's results were explained.
  public let failure: LinearizabilityStressFailure?
  /// The issue that stopped the check before it could judge every run, as recorded — its
  /// arguments, a deterministic run around it, operations that cannot be judged alone — or `nil`.
  public let problem: String?

  /// Whether the check passed: it recorded no issue, neither a ``failure`` nor a ``problem``. A
  /// pass is evidence, not proof: the runs may not have met the interleaving that fails.
  public var passed: Bool { failure == nil && problem == nil }

  /// `checkLinearizability(.stress(runs: 1,000)): 20 scenario(s), 20,512 run(s) on real threads,
  /// 20,000 overlapped, every result explained by an order of the calls`.
  public var description: String {
    if let problem, failure == nil {
      if scenariosRun == 0 { return problem }
      return problem
        + " (It stopped in scenario \(scenariosRun), after \(runs.grouped) run(s), "
        + "\(overlappingRuns.grouped) overlapped.)"
    }
    var text =
      "checkLinearizability(.stress(runs: \(runsPerScenario.grouped))): \(scenariosRun) scenario(s), "
      + "\(runs.grouped) run(s) on real threads, \(overlappingRuns.grouped) overlapped"
    if let failure {
      text +=
        ", failed in scenario \(failure.scenario) (\(failure.failedRuns.grouped) of its "
        + "\(failure.runs.grouped) runs, \(failure.failedOverlappingRuns.grouped) of the "
        + "\(failure.overlappingRuns.grouped) that overlapped)"
    } else {
      text += ", every result explained by an order of the calls"
    }
    return text
  }
}
