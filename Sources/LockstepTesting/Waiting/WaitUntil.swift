/// Waits until `condition` holds, checking it after letting other work run, and fails with a
/// message naming what was awaited if it does not hold within `timeout`.
///
/// Prefer an exact signal when one exists (``TestTaskFactory/waitUntilIdle(timeout:fileID:filePath:line:column:)``,
/// ``Gate/waitForArrivals(_:timeout:fileID:filePath:line:column:)``,
/// ``EventRecorder/waitForCount(_:timeout:fileID:filePath:line:column:)``); use `waitUntil` for
/// state that has none:
///
/// ```swift
/// tracker.start()
/// try await waitUntil("the tracker has started") { tracker.isRunning }
/// ```
///
/// The condition runs in the caller's isolation (on the main actor in a `@MainActor` test), so it
/// can read main-actor state directly. It is checked at once, then after each `Task.yield()`, and
/// after a while with short pauses that grow up to 2 ms so that a slow condition does not burn a
/// core. A passing test returns as soon as the condition holds.
///
/// - Parameters:
///   - description: What you are waiting for, in words; it is the first thing a failure says.
///   - timeout: A failure bound, not a delay.
///   - isolation: The actor the condition runs on; leave the default, the caller's isolation.
///   - fileID: The caller's file ID, where a timeout is reported; leave the default.
///   - filePath: The caller's file path; leave the default.
///   - line: The caller's line; leave the default.
///   - column: The caller's column; leave the default.
///   - condition: Checked until it returns `true`. An error it throws ends the wait.
/// - Throws: ``WaitTimeoutError``, `CancellationError`, or the condition's error.
public func waitUntil(
  _ description: String,
  timeout: Duration = .seconds(10),
  isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ condition: () throws -> Bool
) async throws {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  var checks = 0
  var pause = Duration.microseconds(20)
  while true {
    checks += 1
    if try condition() { return }
    try Task.checkCancellation()
    if clock.now >= deadline {
      throw WaitTimeoutError(
        awaited: "\"\(description)\"", timeout: timeout,
        site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
        pending: ["the condition was still false after \(checks) checks"])
    }
    if checks < 200 {
      await Task.yield()
    } else {
      // A failure bound is being approached slowly: stop spinning, pause briefly.
      try await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(2))
    }
  }
}
