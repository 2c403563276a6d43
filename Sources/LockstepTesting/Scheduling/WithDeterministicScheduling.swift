/// Runs `body`, and every job it causes, one job at a time on one thread, in an order chosen by
/// `seed`, with `Task.sleep` and clock sleeps in virtual time.
///
/// The run is drained on the thread that calls this function, while the caller waits (so an
/// empty run costs microseconds); a caller isolated to an actor other than the main actor, or a
/// run with a `gracePeriod`, is drained by Lockstep's own thread while the caller suspends.
/// Everything the body starts runs on that one thread: unstructured and detached tasks,
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
/// The body is an ordinary closure, like any other closure of your test: it can assign to your
/// locals, use your isolation's state directly (a `@MainActor` model in a `@MainActor` test), and
/// return a value that is not `Sendable`. It still runs as a task of the run, on the scheduler's
/// thread, while the caller waits; the two never run at the same time.
///
/// ```swift
/// @MainActor @Test func refreshesTwice() async throws {
///   let model = FeedModel()
///   var counts: [Int] = []
///   try await withDeterministicScheduling(seed: 1) {
///     await model.refresh()
///     counts.append(model.items.count)   // assigns the test's local
///     await model.refresh()
///     counts.append(model.items.count)
///   }
///   #expect(counts == [20, 40])
/// }
/// ```
///
/// When the body cannot finish (nothing is ready, nobody sleeps), the run fails at once with a
/// ``DeterministicDeadlock`` listing the run's tasks; the body is cancelled first so that
/// cancellable waits unwind, and tasks that stay stuck are quarantined (never run again). The call
/// still throws the report, and the process goes on.
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
///   - body: The code to run: an ordinary, non-escaping closure that runs in your isolation and
///     may assign to your locals. It runs as a new task on the scheduler's thread while the
///     caller waits.
/// - Returns: What `body` returned, of any type.
/// - Throws: What `body` threw, ``DeterministicDeadlock``, ``WaitTimeoutError``,
///   ``RealClockSleep``, ``NestedDeterministicRun`` when called inside another deterministic
///   run, or
///   ``DeterministicSchedulingUnavailable`` when this toolchain or OS cannot run the scheduler.
public nonisolated(nonsending) func withDeterministicScheduling<Result>(
  seed: UInt64? = nil, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Result
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
/// The body is an ordinary closure, as for `withDeterministicScheduling`: it can assign to your
/// locals and return a value that is not `Sendable`.
///
/// ```swift
/// var log: [String] = []
/// let outcome = try await runDeterministically(seed: 9) { log = await workload() }
/// print(log, outcome.trace.timeline)
/// ```
///
/// - Parameters:
///   - seed: `nil` for FIFO order, or a seed for a reproducible pseudo-random order.
///   - timeout: A real-time bound for the whole run.
///   - gracePeriod: How long to wait in real time for a job from outside the run before reporting
///     a deadlock.
///   - fileID: The call site's file, captured automatically; reports name it.
///   - filePath: The call site's file path, captured automatically.
///   - line: The call site's line, captured automatically.
///   - column: The call site's column, captured automatically.
///   - body: The code to run: an ordinary, non-escaping closure that runs in your isolation. It
///     runs as a new task on the scheduler's thread while the caller waits.
/// - Returns: The body's value and the trace.
public nonisolated(nonsending) func runDeterministically<Result>(
  seed: UInt64? = nil, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Result
) async throws -> DeterministicOutcome<Result> {
  try await runDeterministically(
    seed: seed, timeout: timeout, gracePeriod: gracePeriod,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), body)
}

/// The implementation of ``runDeterministically(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
/// which the `.deterministic` trait shares.
nonisolated(nonsending) func runDeterministically<Result>(
  seed: UInt64?, timeout: Duration, gracePeriod: Duration, site: CallSite,
  _ body: () async throws -> Result
) async throws -> DeterministicOutcome<Result> {
  // The run itself is not generic: called from another module, this function runs unspecialized,
  // and every generic type on the way (results, completions, the lent body) would cost a runtime
  // metadata lookup on each run. The body's value goes into this local instead.
  var value: Result?
  let trace = try await runDeterministically(
    seed: seed, timeout: timeout, gracePeriod: gracePeriod, site: site
  ) { value = try await body() }
  return try DeterministicOutcome(storedValue: value, trace: trace)
}

/// A run of a body that returns nothing; returns its trace.
nonisolated(nonsending) private func runDeterministically(
  seed: UInt64?, timeout: Duration, gracePeriod: Duration, site: CallSite,
  _ body: () async throws -> Void
) async throws -> SchedulerTrace {
  try await RunLifecycle.lending(body) { body in
    try await RunLifecycle.exclusively {
      if seed != nil { HashingDeterminism.warnOnceIfNotDeterministic(at: site) }
      let run = DeterministicRun(
        order: seed.map { .seeded($0) } ?? .fifo, timeout: timeout, gracePeriod: gracePeriod,
        site: site)
      return try await run.perform(body).outcome.get().trace
    }
  }
}

/// The blocking form of
/// ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)`` for
/// synchronous contexts: it drains the run on the calling thread and returns when the body has
/// finished. Don't call it on a thread of Swift's cooperative pool.
///
/// ```swift
/// func testSynchronousEntryPoint() throws {
///   var answer = 0
///   let outcome = try withDeterministicSchedulingBlocking { answer = await computeAnswer() }
///   XCTAssertEqual(answer, 42)
///   XCTAssertFalse(outcome.trace.steps.isEmpty)
/// }
/// ```
///
/// - Parameters:
///   - seed: `nil` for FIFO order, or a seed for a reproducible pseudo-random order.
///   - timeout: A real-time bound for the whole run.
///   - gracePeriod: How long to wait in real time for a job from outside the run before reporting
///     a deadlock.
///   - fileID: The call site's file, captured automatically; reports name it.
///   - filePath: The call site's file path, captured automatically.
///   - line: The call site's line, captured automatically.
///   - column: The call site's column, captured automatically.
///   - body: The code to run: an ordinary, non-escaping closure that may assign to your locals.
///     It runs as a new task on the scheduler's thread while the calling thread is blocked.
/// - Returns: The body's value and the trace.
public func withDeterministicSchedulingBlocking<Result>(
  seed: UInt64? = nil, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Result
) throws -> DeterministicOutcome<Result> {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  // Not generic below this point, as in `runDeterministically`.
  var value: Result?
  let trace = try runDeterministicallyBlocking(
    seed: seed, timeout: timeout, gracePeriod: gracePeriod, site: site
  ) { value = try await body() }
  return try DeterministicOutcome(storedValue: value, trace: trace)
}

/// The blocking run of a body that returns nothing; returns its trace.
private func runDeterministicallyBlocking(
  seed: UInt64?, timeout: Duration, gracePeriod: Duration, site: CallSite,
  _ body: () async throws -> Void
) throws -> SchedulerTrace {
  try RunLifecycle.lendingBlocking(body) { body in
    try RunLifecycle.exclusivelyBlocking {
      if seed != nil { HashingDeterminism.warnOnceIfNotDeterministic(at: site) }
      let run = DeterministicRun(
        order: seed.map { .seeded($0) } ?? .fifo, timeout: timeout, gracePeriod: gracePeriod,
        site: site)
      return try run.performBlocking(body).outcome.get().trace
    }
  }
}
