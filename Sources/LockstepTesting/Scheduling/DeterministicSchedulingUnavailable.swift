/// Thrown when the deterministic scheduler cannot run on this toolchain or platform. (A run started
/// inside another run is a misuse, and throws ``NestedDeterministicRun``.)
public struct DeterministicSchedulingUnavailable: Error, CustomStringConvertible, Sendable {
  /// Why the scheduler cannot run.
  public let reason: String

  /// The reason, prefixed with what failed.
  public var description: String { "Deterministic scheduling is unavailable: \(reason)" }
}

extension DeterministicSchedulingUnavailable {
  /// A run that ended as finished although its body had not: a Lockstep bug, thrown rather than
  /// trapped.
  static let bodyDidNotFinish = DeterministicSchedulingUnavailable(
    reason: "the run finished without its body finishing")
}
