/// Runs `body`, and every job it causes, one job at a time on one thread, in an order chosen by
/// `seed`, with `Task.sleep` and clock sleeps in virtual time.
///
/// Everything the body starts runs on the scheduler's thread: unstructured and detached tasks,
/// `async let`, task groups, actor jobs, resumed continuations, `Task.yield()`, and main-actor
/// work. Without a seed the order is first-in, first-out; with a seed the next ready job is
/// picked pseudo-randomly, and the same seed reproduces the same order. (When more than 128 jobs
/// are ready at once, the pick is among the 128 that have waited longest.)
///
/// Sleeps do not wait: when no job is ready, virtual time jumps to the earliest deadline. A model
/// that sleeps ten minutes finishes in microseconds.
///
/// ```swift
/// @Test func retriesThreeTimes() async throws {
///   try await withDeterministicScheduling(seed: 1) {
///     let client = RetryingClient(backoff: .seconds(30))
///     await client.fetch()               // sleeps 30 s, 60 s, 120 s — instantly
///     #expect(client.attempts == 3)
///   }
/// }
/// ```
///
/// When the body cannot finish (nothing is ready, nobody sleeps), the run fails at once with a
/// ``DeterministicDeadlock`` listing the run's tasks; the body is cancelled first so that
/// cancellable waits unwind, and tasks that stay stuck are quarantined (never run again).
///
/// What cannot be virtualized: `ContinuousClock.now`, `SuspendingClock.now` and `Date()` read the
/// real clock; Dispatch timers, `DispatchQueue.asyncAfter`, threads and real I/O run outside the
/// scheduler. A job that another thread enqueues for a task of the run (a continuation resumed by
/// real I/O) does come back to the run; give `gracePeriod` so that the run waits for such jobs in
/// real time before declaring a deadlock. Deterministic runs in one process run one at a time.
///
/// - Parameters:
///   - seed: `nil` for FIFO order, or a seed for a reproducible pseudo-random order.
///   - timeout: A real-time bound for the whole run (a body that never stops running fails with a
///     ``WaitTimeoutError``).
///   - gracePeriod: How long to wait in real time for a job from outside the run before reporting
///     a deadlock. Zero by default: deadlocks are reported at once.
///   - fileID: The call site's file, captured automatically; reports name it.
///   - filePath: The call site's file path, captured automatically.
///   - line: The call site's line, captured automatically.
///   - column: The call site's column, captured automatically.
///   - body: The code to run. It runs in a new task on the scheduler's thread.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw, ``DeterministicDeadlock``, ``WaitTimeoutError``,
///   ``NestedDeterministicRun`` when called inside another deterministic run, or
///   ``DeterministicSchedulingUnavailable`` when this toolchain or OS cannot run the scheduler.
public func withDeterministicScheduling<Result: Sendable>(
  seed: UInt64? = nil, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
  try await runDeterministically(
    seed: seed, timeout: timeout, gracePeriod: gracePeriod,
    fileID: fileID, filePath: filePath, line: line, column: column, body
  ).value
}

/// Like ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
/// and returns the run's ``SchedulerTrace`` with the body's value.
///
/// ```swift
/// let first = try await runDeterministically(seed: 9) { await workload() }
/// let again = try await runDeterministically(seed: 9) { await workload() }
/// #expect(first.trace == again.trace)
/// ```
///
/// - Returns: The body's value and the trace.
public func runDeterministically<Result: Sendable>(
  seed: UInt64? = nil, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable () async throws -> Result
) async throws -> DeterministicOutcome<Result> {
  try await runDeterministically(
    seed: seed, timeout: timeout, gracePeriod: gracePeriod,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
    onQuarantine: nil, body)
}

/// The implementation of ``runDeterministically(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``;
/// `onQuarantine` is called when the run has to leave tasks suspended for good.
func runDeterministically<Result: Sendable>(
  seed: UInt64?, timeout: Duration, gracePeriod: Duration, site: CallSite,
  onQuarantine: (@Sendable () -> Void)?,
  _ body: @escaping @Sendable () async throws -> Result
) async throws -> DeterministicOutcome<Result> {
  try await RunLifecycle.exclusively {
    let run = DeterministicRun(
      order: seed.map { .seeded($0) } ?? .fifo, timeout: timeout, gracePeriod: gracePeriod,
      site: site)
    run.onQuarantine = onQuarantine
    return try await run.perform(body).outcome.get()
  }
}

/// The blocking form of
/// ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)`` for
/// synchronous contexts: it drains the run on the calling thread and returns when the body has
/// finished. Don't call it on a thread of Swift's cooperative pool.
///
/// ```swift
/// func testSynchronousEntryPoint() throws {
///   let value = try withDeterministicSchedulingBlocking { await computeAnswer() }.value
///   XCTAssertEqual(value, 42)
/// }
/// ```
///
/// - Returns: The body's value and the trace.
public func withDeterministicSchedulingBlocking<Result: Sendable>(
  seed: UInt64? = nil, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable () async throws -> Result
) throws -> DeterministicOutcome<Result> {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  return try RunLifecycle.exclusivelyBlocking {
    let run = DeterministicRun(
      order: seed.map { .seeded($0) } ?? .fifo, timeout: timeout, gracePeriod: gracePeriod,
      site: site)
    return try run.performBlocking(body).outcome.get()
  }
}
