import Foundation

/// The value a deterministic run's body returned, with the trace of the run.
///
/// ```swift
/// let outcome = try await runDeterministically(seed: 42) { await model.refresh() }
/// print(outcome.trace.taskOrder)
/// ```
public struct DeterministicOutcome<Value: Sendable>: Sendable {
  /// What the body returned.
  ///
  /// ```swift
  /// let outcome = try await runDeterministically { 6 * 7 }
  /// #expect(outcome.value == 42)
  /// ```
  public let value: Value
  /// Every job the scheduler executed, in order.
  ///
  /// ```swift
  /// print(outcome.trace.taskOrder)
  /// ```
  public let trace: SchedulerTrace
}

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
/// - Throws: What `body` threw, ``DeterministicDeadlock``, ``WaitTimeoutError``, or
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
  try checkCanStartRun()
  await RunSerializer.shared.acquire()
  defer { RunSerializer.shared.release() }
  let run = DeterministicRun(seed: seed, timeout: timeout, gracePeriod: gracePeriod, site: site)
  run.onQuarantine = onQuarantine
  let result = Locked<Swift.Result<Result, any Error>?>(nil)
  startBody(body, in: run, storingInto: result)
  let drained = await DrainWorker.shared.drain(run)
  return try outcome(of: drained, result: result.value, run: run).get()
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
  try checkCanStartRun()
  RunSerializer.shared.acquireBlocking()
  defer { RunSerializer.shared.release() }
  let run = DeterministicRun(seed: seed, timeout: timeout, gracePeriod: gracePeriod, site: site)
  let result = Locked<Swift.Result<Result, any Error>?>(nil)
  startBody(body, in: run, storingInto: result)
  return try outcome(of: run.drain(), result: result.value, run: run).get()
}

func checkCanStartRun() throws {
  try RuntimeHooks.install()
  if DrainThread.current != nil {
    throw DeterministicSchedulingUnavailable(
      reason: "a deterministic run cannot start inside another deterministic run")
  }
}

/// Creates the body's task so that its first job lands in the run. `Task {}` copies the caller's
/// task-local values (the running test, Lockstep's issue collector).
func startBody<Result: Sendable>(
  _ body: @escaping @Sendable () async throws -> Result, in run: DeterministicRun,
  storingInto result: Locked<Swift.Result<Result, any Error>?>
) {
  let task = DrainThread.with(run) {
    Task {
      let value: Swift.Result<Result, any Error>
      do { value = .success(try await body()) } catch { value = .failure(error) }
      result.withLock { $0 = value }
      noteTaskFinished()
      run.markBodyFinished()
    }
  }
  run.cancelBody = { task.cancel() }
}

private func outcome<Result: Sendable>(
  of drained: DrainOutcome, result: Swift.Result<Result, any Error>?, run: DeterministicRun
) -> Swift.Result<DeterministicOutcome<Result>, any Error> {
  switch drained {
  case .deadlock(let report):
    return .failure(report)
  case .tooManySteps(let trace):
    return .failure(
      DeterministicSchedulingUnavailable(
        reason: "the run stopped after \(trace.steps.count) jobs without its body finishing"))
  case .timedOut(let trace):
    return .failure(
      WaitTimeoutError(
        awaited: "the deterministic run's body to finish", timeout: run.timeout, site: run.site,
        pending: [
          "\(trace.steps.count) jobs ran; the body was still running (a loop that never "
            + "stops, or waits for outside jobs that never came); its jobs are quarantined"
        ]))
  case .finished(let trace):
    guard let result else {
      return .failure(
        DeterministicSchedulingUnavailable(reason: "the run finished without its body finishing"))
    }
    return result.map { DeterministicOutcome(value: $0, trace: trace) }
  }
}

/// Lets one deterministic run proceed at a time in the process, so that main-actor work of two
/// runs never overlaps. First come, first served.
final class RunSerializer: Sendable {
  static let shared = RunSerializer()

  private struct State {
    var held = false
    var waiters: [@Sendable () -> Void] = []
  }
  private let state = Locked(State())

  func acquire() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let acquired = state.withLock { state in
        if !state.held {
          state.held = true
          return true
        }
        state.waiters.append { continuation.resume() }
        return false
      }
      if acquired { continuation.resume() }
    }
  }

  func acquireBlocking() {
    let semaphore = DispatchSemaphore(value: 0)
    let acquired = state.withLock { state in
      if !state.held {
        state.held = true
        return true
      }
      state.waiters.append { semaphore.signal() }
      return false
    }
    if !acquired { semaphore.wait() }
  }

  /// Passes the lock to the next waiter, or frees it.
  func release() {
    let next: (@Sendable () -> Void)? = state.withLock { state in
      guard !state.waiters.isEmpty else {
        state.held = false
        return nil
      }
      return state.waiters.removeFirst()
    }
    next?()
  }
}
