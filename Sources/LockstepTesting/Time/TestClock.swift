/// A clock whose time moves only when the test says so: tests of code that sleeps — debounce,
/// retry with backoff, timeouts, polling — run in microseconds and never flake.
///
/// ```swift
/// @MainActor @Test(.timeLimit(.minutes(1)))
/// func searchesAfterAQuietPeriod() async throws {
///   let clock = TestClock()
///   let model = DebouncedSearch(backend: backend, clock: clock, tasks: tasks)
///   model.textChanged("swift")
///   try await clock.waitForSleepers(count: 1)     // the model is really sleeping now
///   await clock.advance(by: .milliseconds(79))
///   #expect(backend.requests.isEmpty)
///   await clock.advance(by: .milliseconds(1))     // wakes the sleeper
///   try await tasks.waitUntilIdle()
///   #expect(backend.requests == ["swift"])
/// }
/// ```
///
/// The clock starts at ``Instant/zero``. A sleeper is registered before its task suspends, so
/// ``waitForSleepers(count:timeout:fileID:filePath:line:column:)`` is exact. An advance moves
/// `now` first, then wakes the sleepers due in deadline order, each `sleep` returning in its own
/// task before the next wakes; moving time backwards is reported as a misuse. A
/// `TestQueue(clock:)` shares the clock's timeline. See <doc:WhatTimeItIs>.
public final class TestClock: Clock, Sendable, CustomStringConvertible {
  /// A point in time of a ``TestClock``: an offset from the clock's zero.
  public struct Instant: InstantProtocol, CustomStringConvertible {
    /// The time since the clock's zero.
    public let offset: Duration

    /// Creates the instant `offset` after the clock's zero.
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The instant a new clock starts at.
    public static var zero: Instant { Instant(offset: .zero) }

    /// The instant `duration` later (earlier, when negative).
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The duration from this instant to `other`.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }

    /// The offset as people write it, e.g. `80 ms`.
    public var description: String { offset.lockstepText }
  }

  /// Internal: the `TestQueue`s on this clock keep their work here, on one timeline.
  let state = Locked(TestClockState<ClockWaiter>())

  /// Whether a deterministic run moves this clock on its own: when no job of the run is ready,
  /// the run advances the clock to its next sleeper's deadline, as it does with `Task.sleep`.
  public let advancesAutomatically: Bool

  /// Creates a clock at ``Instant/zero`` with no sleepers; only the test moves its time.
  public convenience init() {
    self.init(advancesAutomatically: false)
  }

  /// Creates a clock at ``Instant/zero`` with no sleepers; with `advancesAutomatically`, a
  /// deterministic run advances it to its earliest sleeper's deadline when no job is ready.
  public init(advancesAutomatically: Bool) {
    self.advancesAutomatically = advancesAutomatically
  }

  /// The current time. It changes only when the test advances the clock.
  public var now: Instant { Instant(offset: state.withLock { $0.now }) }

  /// Zero: sleepers wake exactly at their deadlines.
  public var minimumResolution: Duration { .zero }

  /// How many sleepers are suspended in ``sleep(until:tolerance:)`` right now. Cancelled sleepers,
  /// sleepers that returned at once and woken sleepers are not counted.
  public var sleeperCount: Int { state.withLock { $0.sleeperCount } }

  /// The deadlines of the suspended sleepers, earliest first.
  public var pendingDeadlines: [Instant] {
    state.withLock { $0.pendingDeadlines }.map(Instant.init(offset:))
  }

  /// `TestClock(now: 80 ms, 1 sleeper(s), next deadline 160 ms)`.
  public var description: String {
    let (now, count, next) = state.withLock { ($0.now, $0.sleeperCount, $0.nextDeadline()) }
    return "TestClock(now: \(now.lockstepText), \(count) sleeper(s)"
      + (next.map { ", next deadline \($0.lockstepText))" } ?? ")")
  }

  /// Suspends until the test moves the clock to `deadline` or later; a deadline that is not in
  /// the future returns at once, and `tolerance` is ignored. See
  /// <doc:WhatTimeItIs#Where-a-woken-sleeper-runs> for the actor it resumes on.
  ///
  /// - Throws: `CancellationError` when the task is cancelled before it is woken, including when
  ///   it was cancelled before it called `sleep`.
  nonisolated(nonsending) public func sleep(until deadline: Instant, tolerance: Duration? = nil)
    async throws
  {
    try Task.checkCancellation()
    let state = self.state
    let isolation = #isolation
    // The place is taken before suspending, so that the cancellation handler has a ticket.
    guard let ticket = state.withLock({ $0.reserve(until: deadline.offset) }) else { return }
    let task = sleepingTaskName()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: Waiter<Void>) in
        let decision = state.withLock {
          $0.attach(
            ticket, ClockWaiter(continuation, isolation: isolation), isCancelled: Task.isCancelled,
            task: task)
        }
        switch decision {
        case .suspended(_, let satisfied):
          for watcher in satisfied { watcher.resume() }
          if self.advancesAutomatically { self.wakeInDeterministicRun(at: deadline.offset) }
          _ = CurrentRun.noteWait(as: .testClock(deadline: deadline.offset))
        case .elapsed:
          continuation.resume()
        case .cancelled:
          continuation.resume(throwing: CancellationError())
        }
      }
    } onCancel: {
      state.withLock { $0.cancel(ticket) }?.resume(throwing: CancellationError())
    }
    // Woken by an advance (or the deadline passed while registering): this sleeper is running
    // again, on its own actor. The advance that woke it goes on from here — with the next sleeper
    // due, or itself — once this sleeper's next statements have run on that actor.
    switch state.withLock({ $0.returned(ticket) }) {
    case .none: break
    case .sleeper(let next): await next.resume(afterSleeperOn: isolation)
    case .advance(let advance): await advance.resume(afterSleeperOn: isolation)
    }
  }

  /// Suspends until the test moves the clock `duration` past ``now`` or later: the same as
  /// ``sleep(until:tolerance:)`` with `now.advanced(by: duration)`.
  ///
  /// - Throws: `CancellationError` when the task is cancelled before it is woken.
  nonisolated(nonsending) public func sleep(for duration: Duration, tolerance: Duration? = nil)
    async throws
  {
    try await sleep(until: now.advanced(by: duration), tolerance: tolerance)
  }

  /// Inside a deterministic run, asks the run to advance this clock to `deadline` once nothing
  /// else is ready.
  private func wakeInDeterministicRun(at deadline: Duration) {
    guard CurrentRun.isActive else { return }
    let delay = deadline - state.withLock { $0.now }
    _ = CurrentRun.wake(after: delay) { [self] in advanceAutomatically(to: deadline) }
  }

  /// Moves time to `target` if a sleeper is still due by then, and resumes the sleepers due.
  /// Runs on the drain thread when nothing else is ready, so it does not wait for them to return.
  private func advanceAutomatically(to target: Duration) {
    let woken: [ClockWaiter] = state.withLock { state in
      guard let next = state.nextDeadline(), next <= target,
        case .advanced(let woken) = state.advance(to: max(target, state.now))
      else { return [] }
      return woken.map(\.waiter)
    }
    for waiter in woken { waiter.resume() }
  }

  /// Moves time forward by `duration` and wakes every sleeper that is due, each `sleep` returning
  /// before the next wakes and before this returns. A negative duration is a reported misuse.
  ///
  /// - Parameters:
  ///   - duration: How far to move time.
  ///   - timeout: A failure bound for each woken sleeper to return from `sleep` (it elapses only
  ///     when the executor that runs the sleeper is blocked); reported as an issue.
  /// - Returns: How many sleepers were woken.
  @discardableResult
  nonisolated(nonsending) public func advance(
    by duration: Duration, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    await advanceEvents(
      .by(duration), caller: "TestClock.advance(by: \(duration.lockstepText))", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    ).sleepers
  }

  /// Moves time forward to `deadline` and wakes every sleeper that is due, like
  /// ``advance(by:timeout:fileID:filePath:line:column:)``. A deadline before ``now`` is a
  /// reported misuse.
  ///
  /// - Returns: How many sleepers were woken.
  @discardableResult
  nonisolated(nonsending) public func advance(
    to deadline: Instant, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    await advanceEvents(
      .to(deadline.offset), caller: "TestClock.advance(to: \(deadline))", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    ).sleepers
  }

  /// Advances to each next deadline in turn, waking its sleepers, until no sleeper is left. A
  /// woken sleeper that sleeps again before the next step is included; one that gets there later
  /// is not.
  ///
  /// - Parameters:
  ///   - timeout: A failure bound in real time: if sleepers are still left after it
  ///     (code that sleeps in an endless loop), an issue naming them is reported and `run` returns.
  /// - Returns: How many sleepers were woken.
  @discardableResult
  nonisolated(nonsending) public func run(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    await advanceEvents(
      .run, caller: "TestClock.run()", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    ).sleepers
  }

  /// Waits until at least `count` sleepers are suspended in ``sleep(until:tolerance:)`` — the way
  /// a test knows the code under test has really reached its sleep before it moves time.
  ///
  /// - Throws: ``WaitTimeoutError`` naming the clock and how many sleepers there were, or
  ///   `CancellationError`.
  nonisolated(nonsending) public func waitForSleepers(
    count: Int = 1, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await state.wait(
      for: "\(count) sleeper(s) on the TestClock", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      arrive: { ($0.watchSleepers($1, target: count, ClockWaiter($2)), []) },
      depart: { $0.departCountWatcher($1)?.continuation },
      pending: { [self] in ["\($0.sleeperCount) of \(count) sleeping; \(self)"] })
  }
}
