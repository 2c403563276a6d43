/// What ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``
/// did: how many scenarios and schedules ran, and the failure if it found one — or the problem
/// that stopped it before it could judge.
///
/// ```swift
/// let result = await checkLinearizability(of: { Counter() }, operations: operations)
/// #expect(result.passed)
/// ```
public struct LinearizabilityResult: Sendable, CustomStringConvertible {
  /// How many scenarios ran (shrinking aside).
  public let scenariosRun: Int
  /// How many runs of scenarios there were, over every schedule of every scenario (shrinking and
  /// the replay before a report aside).
  public let schedulesRun: Int
  /// The failure, shrunk; `nil` when every run's results were explained.
  public let failure: LinearizabilityFailure?
  /// Whether the time budget ran out: it stopped the scenarios early, or cut some scenario's
  /// schedules short.
  public let ranOutOfTime: Bool
  /// The issue that stopped the check before it could judge every run, as recorded — its
  /// arguments, a nested run, scheduling unavailable, operations that cannot be judged alone (they
  /// give other results for the same calls, or do not return) — or `nil`.
  public let problem: String?

  init(
    scenariosRun: Int, schedulesRun: Int, failure: LinearizabilityFailure?, ranOutOfTime: Bool,
    problem: String? = nil
  ) {
    self.scenariosRun = scenariosRun
    self.schedulesRun = schedulesRun
    self.failure = failure
    self.ranOutOfTime = ranOutOfTime
    self.problem = problem
  }

  /// Whether the check passed: it recorded no issue, neither a ``failure`` nor a ``problem``.
  public var passed: Bool { failure == nil && problem == nil }

  /// `checkLinearizability: 20 scenario(s), 2000 run(s), every result explained`.
  public var description: String {
    if let problem, failure == nil {
      if scenariosRun == 0 { return problem }
      return problem + " (It stopped after \(scenariosRun) scenario(s), \(schedulesRun) run(s).)"
    }
    var text = "checkLinearizability: \(scenariosRun) scenario(s), \(schedulesRun) run(s)"
    if let failure {
      text += ", failed in scenario \(failure.scenario)"
    } else {
      text += ", every result explained by an order of the calls"
    }
    if ranOutOfTime { text += " (stopped by its time budget)" }
    return text
  }
}
