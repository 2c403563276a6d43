/// Thrown when a deterministic run is started inside another one — a misuse, not a limit of the
/// platform: the code already runs on the scheduler, one job at a time, and a second scheduler
/// cannot take over its jobs.
///
/// It happens when a test under the `.deterministic` trait, or inside
/// ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
/// calls `withDeterministicScheduling` or ``runDeterministically(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``
/// again. Call the code directly instead. ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)``
/// inside a run reports the same misuse at its call.
///
/// ```swift
/// @Test(.deterministic()) func refreshes() async throws {
///   do {
///     try await withDeterministicScheduling { await model.refresh() }   // already deterministic
///   } catch let error as NestedDeterministicRun {
///     print(error.outerRun)   // where the run this test runs in was started
///   }
///   await model.refresh()     // what the test meant
/// }
/// ```
public struct NestedDeterministicRun: Error, CustomStringConvertible, Sendable {
  /// Where the run that was already running was started: a `withDeterministicScheduling` call,
  /// or the `.deterministic` trait.
  ///
  /// ```swift
  /// print(error.outerRun)   // "MyAppTests/FeedTests.swift:12:4"
  /// ```
  public let outerRun: CallSite

  /// What went wrong and what to do.
  ///
  /// ```swift
  /// print(error)   // "A deterministic run cannot start inside another deterministic run …"
  /// ```
  public var description: String {
    "A deterministic run cannot start inside another deterministic run (the one started at "
      + "\(outerRun)): the code already runs on the scheduler, one job at a time. Call it "
      + "directly, without withDeterministicScheduling or runDeterministically."
  }
}
