/// Waits until `condition` holds, checking it again and again while letting other work run, and
/// fails with a message naming what was awaited if it does not hold within `timeout`.
///
/// `waitUntil` polls: nothing tells it when the condition changes. Prefer an exact signal when one
/// exists — it resumes the test at the very moment the event happens and never spins:
/// ``TestTaskFactory/waitUntilIdle(timeout:fileID:filePath:line:column:)`` for tasks that finish,
/// ``Gate/waitForArrivals(_:timeout:fileID:filePath:line:column:)`` for code that reached a gate,
/// ``ControlledCalls/waitUntilPending(_:timeout:fileID:filePath:line:column:)`` for a call that
/// reached a fake, ``TestClock/waitForSleepers(count:timeout:fileID:filePath:line:column:)`` for
/// code that is sleeping, ``EventRecorder/waitForCount(_:timeout:fileID:filePath:line:column:)``
/// for callbacks and values. Use `waitUntil` for state that has none:
///
/// ```swift
/// tracker.start()
/// try await waitUntil("the tracker has started") { tracker.isRunning }
/// ```
///
/// The condition runs in the caller's isolation (on the main actor in a `@MainActor` test), so it
/// can read main-actor state directly. How it polls, exactly:
/// 1. It checks the condition at once, before anything else: a condition that already holds
///    returns without suspending.
/// 2. Up to the 200th check, it calls `Task.yield()` before each further check, so work waiting
///    for the caller's actor or for a thread gets to run.
/// 3. From then on it pauses with a real `Task.sleep` before each check: 20 µs, then twice as
///    long each time, up to 2 ms, so that a condition that takes long does not burn a core.
///
/// So a condition that becomes true is seen within one yield at first and within about 2 ms
/// later on. The condition's error ends the wait at once, after that one check. Cancellation is
/// checked after every false check. `timeout` is measured in real time (`ContinuousClock`) after
/// each false check; the wait then throws ``WaitTimeoutError`` saying how many checks it made.
///
/// To read an actor's state, use the async form,
/// ``waitUntil(_:timeout:isolation:fileID:filePath:line:column:_:)-4c64k``.
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
  // Inside a run that reads virtual now, the clock and so the bound are virtual time.
  let clock = ContinuousClock()
  let virtual = CurrentRun.readsVirtualNow
  let deadline = clock.now.advanced(by: virtual ? timeout : FailureBoundScale.scaled(timeout))
  var checks = 0
  var pause = Duration.microseconds(20)
  while true {
    checks += 1
    if try await check() { return }
    try Task.checkCancellation()
    if clock.now >= deadline {
      throw WaitTimeoutError(
        awaited: "\"\(description)\"", timeout: timeout, site: site,
        pending: ["the condition was still false after \(checks) checks"],
        isVirtualTime: virtual,
        scale: FailureBoundScale.current)
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
