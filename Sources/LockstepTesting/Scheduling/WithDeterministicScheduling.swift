/// Runs `body`, and every job it causes, one job at a time on one thread, in an order chosen by
/// `seed`, with `Task.sleep` and clock sleeps in virtual time.
///
/// Without a seed the order is first in, first out; the same seed gives the same order. A run that
/// cannot finish fails at once with a ``DeterministicDeadlock``. See <doc:WhichWorkRunsNext>.
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
/// - Parameters:
///   - seed: `nil` for FIFO order, or a seed for a reproducible pseudo-random order.
///   - timeout: A real-time bound for the whole run; past it the run fails with a
///     ``WaitTimeoutError``.
///   - gracePeriod: How long to wait in real time for a job from outside the run before reporting
///     a deadlock; zero by default.
///   - body: The code to run: an ordinary, non-escaping closure that runs in your isolation and
///     may assign to your locals.
/// - Returns: What `body` returned, of any type.
/// - Throws: What `body` threw, ``DeterministicDeadlock``, ``WaitTimeoutError``,
///   ``RealClockSleep``, ``NestedDeterministicRun`` (inside another deterministic run), or
///   ``DeterministicSchedulingUnavailable`` (this toolchain or OS cannot run the scheduler).
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
/// - Parameters:
///   - seed: `nil` for FIFO order, or a seed for a reproducible pseudo-random order.
///   - timeout: A real-time bound for the whole run.
///   - gracePeriod: How long to wait in real time for a job from outside the run before reporting
///     a deadlock.
///   - body: The code to run: an ordinary, non-escaping closure that runs in your isolation.
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
    try await RunLifecycle.starting(at: site) {
      let run = RunRecipe.test(seed: seed, timeout: timeout, gracePeriod: gracePeriod).make(at: site)
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
///   - body: The code to run: an ordinary, non-escaping closure that may assign to your locals.
/// - Returns: The body's value and the trace.
@discardableResult
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

/// The blocking form for a synchronous body: a synchronous XCTest method wrapped unchanged keeps
/// the diagnostics it had, and its waits (`waitForExpectations`, `wait(for:timeout:)`) are parked in
/// the run while the run's other work goes on. See <doc:WrappingAnExistingXCTestSuite>.
///
/// ```swift
/// func testLoadsTheNameOnTheMainQueue() throws {
///   try withDeterministicSchedulingBlocking(seed: 1) {
///     let loaded = expectation(description: "loaded")
///     loader.load { _ in loaded.fulfill() }  // answers on DispatchQueue.main after 2 s
///     waitForExpectations(timeout: 5)        // returns after 2 virtual seconds, at once
///   }
/// }
/// ```
///
/// - Parameters:
///   - seed: `nil` for FIFO order, or a seed for a reproducible pseudo-random order.
///   - timeout: A real-time bound for the whole run.
///   - gracePeriod: How long to wait in real time for a job from outside the run before reporting
///     a deadlock.
///   - body: The code to run, as the run's body: tasks and blocks it starts are the run's.
/// - Returns: The body's value and the trace.
@discardableResult
public func withDeterministicSchedulingBlocking<Result>(
  seed: UInt64? = nil, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () throws -> Result
) throws -> DeterministicOutcome<Result> {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  var value: Result?
  let trace = try runDeterministicallyBlocking(
    seed: seed, timeout: timeout, gracePeriod: gracePeriod, site: site
  ) { value = try body() }
  return try DeterministicOutcome(storedValue: value, trace: trace)
}

/// The blocking run of a body that returns nothing; returns its trace.
private func runDeterministicallyBlocking(
  seed: UInt64?, timeout: Duration, gracePeriod: Duration, site: CallSite,
  _ body: () async throws -> Void
) throws -> SchedulerTrace {
  try RunLifecycle.lendingBlocking(body) { body in
    try RunLifecycle.startingBlocking(at: site) {
      let run = RunRecipe.test(seed: seed, timeout: timeout, gracePeriod: gracePeriod).make(at: site)
      return try run.performBlocking(body).outcome.get().trace
    }
  }
}
