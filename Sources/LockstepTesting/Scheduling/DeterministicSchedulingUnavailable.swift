/// Thrown when the deterministic scheduler cannot run on this toolchain or platform. (A run started
/// inside another run is a misuse, and throws ``NestedDeterministicRun``.)
///
/// ```swift
/// do {
///   try await withDeterministicScheduling { await model.load() }
/// } catch let error as DeterministicSchedulingUnavailable {
///   print(error.reason)
/// }
/// ```
public struct DeterministicSchedulingUnavailable: Error, CustomStringConvertible, Sendable {
  /// Why the scheduler cannot run.
  ///
  /// ```swift
  /// print(error.reason)   // why this platform or toolchain cannot run the scheduler
  /// ```
  public let reason: String

  /// The reason, prefixed with what failed.
  ///
  /// ```swift
  /// print(error)   // "Deterministic scheduling is unavailable: …"
  /// ```
  public var description: String { "Deterministic scheduling is unavailable: \(reason)" }
}

extension DeterministicSchedulingUnavailable {
  /// A run that ended as finished although its body had not: a Lockstep bug, thrown rather than
  /// trapped.
  static let bodyDidNotFinish = DeterministicSchedulingUnavailable(
    reason: "the run finished without its body finishing")
}
