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
/// core. A passing test returns as soon as the condition holds. To read an actor's state, use the
/// async form, ``waitUntil(_:timeout:isolation:fileID:filePath:line:column:_:)-4c64k``.
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
  try await pollUntil(
    description, timeout: timeout,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  ) { try condition() }
}

/// Waits until an async `condition` holds — one that reads an actor's state, or awaits anything
/// else — with the same checks, pauses and errors as the synchronous form,
/// ``waitUntil(_:timeout:isolation:fileID:filePath:line:column:_:)-8teun``.
///
/// Prefer an exact signal when one exists; use this form for actor state that has none:
///
/// ```swift
/// let inbox = Inbox()                // an actor
/// inbox.deliver("hello")             // starts a task that reaches the actor later
/// try await waitUntil("the message arrived") { await inbox.unread == 1 }
/// ```
///
/// A closure without `await` picks the synchronous form. The condition runs in the caller's
/// isolation, as in the synchronous form, and hops to an actor where it awaits one. One loop
/// serves both forms, so it is checked exactly when the synchronous form's condition would be: at
/// once, then again after letting other work run. The timeout is checked between checks: a check
/// still awaiting something when the bound passes is not interrupted (the wait fails once it
/// returns `false`), and cancelling the waiting task cancels what the check awaits.
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
  _ condition: () async throws -> Bool
) async throws {
  try await pollUntil(
    description, timeout: timeout,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
    condition)
}

/// The polling loop of both forms of `waitUntil`. It runs in the caller's isolation
/// (`nonisolated(nonsending)`), and so does `check`: a synchronous condition wrapped in a closure
/// still runs on the caller's actor.
private nonisolated(nonsending) func pollUntil(
  _ description: String, timeout: Duration, site: CallSite,
  _ check: nonisolated(nonsending) () async throws -> Bool
) async throws {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  var checks = 0
  var pause = Duration.microseconds(20)
  while true {
    checks += 1
    if try await check() { return }
    try Task.checkCancellation()
    if clock.now >= deadline {
      throw WaitTimeoutError(
        awaited: "\"\(description)\"", timeout: timeout, site: site,
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
