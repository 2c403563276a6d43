/// The value a deterministic run's body returned, with the trace of the run. It is `Sendable`
/// when the value is.
///
/// ```swift
/// let outcome = try await runDeterministically(seed: 42) { await model.refresh() }
/// print(outcome.trace.taskOrder)
/// ```
public struct DeterministicOutcome<Value> {
  /// What the body returned.
  public let value: Value
  /// Every job the scheduler executed, in order.
  public let trace: SchedulerTrace
}

extension DeterministicOutcome: Sendable where Value: Sendable {}

extension DeterministicOutcome {
  /// The outcome of a finished run whose body stored what it returned in `value`.
  init(storedValue value: Value?, trace: SchedulerTrace) throws {
    guard let value else { throw DeterministicSchedulingUnavailable.bodyDidNotFinish }
    self.init(value: value, trace: trace)
  }
}
