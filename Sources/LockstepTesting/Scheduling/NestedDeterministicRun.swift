/// Thrown when a deterministic run is started inside another one (under the `.deterministic`
/// trait, or inside
/// ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``): the
/// code already runs on the scheduler, so call it directly.
public struct NestedDeterministicRun: Error, CustomStringConvertible, Sendable {
  /// Where the run that was already running was started: a `withDeterministicScheduling` call,
  /// or the `.deterministic` trait.
  public let outerRun: CallSite

  /// What went wrong and what to do.
  public var description: String {
    "A deterministic run cannot start inside another deterministic run (the one started at "
      + "\(outerRun)): the code already runs on the scheduler, one job at a time. Call it "
      + "directly, without withDeterministicScheduling or runDeterministically."
  }
}
