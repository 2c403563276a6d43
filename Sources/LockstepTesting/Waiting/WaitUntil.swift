/// Waits until `condition` holds, checking it again and again while letting other work run, and
/// fails with a message naming what was awaited if it does not hold within `timeout`.
///
/// ```swift
/// tracker.start()
/// try await waitUntil("the tracker has started") { tracker.isRunning }
/// ```
///
/// `waitUntil` polls (see <doc:WhereWorkPauses#State-without-a-signal-waitUntil>): prefer an exact
/// signal when one exists, such as ``TestTaskFactory/waitUntilIdle(timeout:fileID:filePath:line:column:)``
/// or ``Gate/waitForArrivals(_:timeout:fileID:filePath:line:column:)``. The condition runs in the
/// caller's isolation; to read an actor's state, use the async form,
/// ``waitUntil(_:timeout:isolation:fileID:filePath:line:column:_:)-4c64k``.
///
/// - Parameters:
///   - description: What you are waiting for, in words; it is the first thing a failure says.
///   - timeout: A failure bound in real time, not a delay.
///   - condition: Checked until it returns `true`. An error it throws ends the wait.
/// - Throws: ``WaitTimeoutError`` saying how many checks it made, `CancellationError`, or the
///   condition's error.
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
/// ```swift
/// let inbox = Inbox()                // an actor
/// inbox.deliver("hello")             // starts a task that reaches the actor later
/// try await waitUntil("the message arrived") { await inbox.unread == 1 }
/// ```
///
/// A closure without `await` picks the synchronous form. A check still awaiting something when
/// the bound passes is not interrupted: the wait fails once it returns `false`.
///
/// - Parameters:
///   - description: What you are waiting for, in words; it is the first thing a failure says.
///   - timeout: A failure bound in real time, not a delay.
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
