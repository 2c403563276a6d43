/// A clock whose time moves only when the test says so: tests of code that sleeps — debounce,
/// retry with backoff, timeouts, polling — run in microseconds and never flake.
///
/// Production code takes `any Clock<Duration>` (`ContinuousClock()` in the app); the test passes a
/// `TestClock`, waits until the code has really reached its sleep, and moves time:
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
/// ## Time
/// The clock starts at ``Instant/zero`` and moves only in ``advance(by:timeout:fileID:filePath:line:column:)``,
/// ``advance(to:timeout:fileID:filePath:line:column:)`` and ``run(timeout:fileID:filePath:line:column:)``.
/// Moving it backwards, or by a negative duration, is a misuse that is reported as a test issue at
/// the call site; time then stays where it was. ``minimumResolution`` is zero.
///
/// ## Sleeping
/// A call to ``sleep(until:tolerance:)`` registers the sleeper *synchronously*, before the task
/// suspends, so ``sleeperCount`` and ``waitForSleepers(count:timeout:fileID:filePath:line:column:)``
/// are exact: when they say a sleeper is there, it is suspended in `sleep`.
/// - A deadline that is not in the future (`deadline <= now`) returns at once, without
///   suspending, like `Task.sleep` with a past deadline; the sleeper is never counted.
/// - A cancelled sleeper throws `CancellationError` and is removed. Cancellation is safe in every
///   phase: a task cancelled before it reaches `sleep` throws at once and is never counted; a
///   task cancelled after it was woken returns normally (its deadline was reached first).
/// - `tolerance` is ignored: a sleeper wakes exactly at its deadline.
///
/// ## What `advance` guarantees
/// 1. `now` is the target before any sleeper is resumed, so every woken sleeper reads the new time.
/// 2. The sleepers due by the target (`deadline <= target`) are woken in deadline order, ties in
///    the order they started sleeping. Sleepers due later stay registered.
/// 3. Sleepers are resumed one at a time: before the next one is resumed, and before `advance`
///    returns, the previous one's `sleep` call has *returned in its own task* — the task is
///    running again, not merely scheduled. `sleep` calls therefore return in deadline order.
///    A sleeper that calls `sleep` on a `TestClock` (not through `any Clock`) and runs on an
///    actor resumes on that actor, and its next statements there, up to its next suspension, run
///    before the clock wakes the next sleeper or lets `advance` go on: it reads its own deadline
///    (the advance's target) from `now`. See <doc:WhatTimeItIs#Where-a-woken-sleeper-runs> for
///    sleepers without an actor and calls through `any Clock`.
///
/// What `advance` cannot know is what a woken sleeper does after `sleep` returns. Its code runs
/// concurrently with the test (and with the other woken sleepers) until its next suspension
/// point: the hop back to its actor, another sleep, a call to a fake, or the end of its task. No
/// clock can see that point, so wait for the one you expect:
/// ``waitForSleepers(count:timeout:fileID:filePath:line:column:)`` when it sleeps again,
/// `Gate.waitForArrivals` or a fake's own wait when it calls a fake, and
/// `TestTaskFactory.waitUntilIdle()` when it finishes.
///
/// `advance`, `run` and `waitForSleepers` are `nonisolated(nonsending)`: they run on the caller's
/// actor and leave it only while they wait, so a main-actor test does not hop off the main actor
/// for an advance that wakes nobody. While an advance waits, it does not come back between
/// sleepers: each woken sleeper, once its `sleep` has returned, resumes the next one due, so a
/// sleeper costs one task hop, and the advance resumes once when it is done (or when work of a
/// ``TestQueue`` is due, which runs on the advance's caller).
///
/// ## One timeline with `TestQueue`
/// A `TestQueue(clock: clock)` keeps its scheduled work on this clock's timeline. Advancing the
/// clock (or the queue) runs the work of every queue on the clock that is due, interleaved with
/// the sleepers in deadline order, ties in the order they were registered; each work item runs
/// synchronously on the caller of `advance`, after the previous sleeper's `sleep` has returned.
/// `now` is still the target before anything is woken or run. ``run(timeout:fileID:filePath:line:column:)``
/// steps through the deadlines of sleepers and queued work alike.
///
/// `advance(by: .seconds(5))` is one jump: a loop that sleeps one second at a time wakes once and
/// then sleeps until 6 s. To see every step, advance one step at a time and wait for the sleeper
/// in between.
public final class TestClock: Clock, Sendable, CustomStringConvertible {
  /// A point in time of a ``TestClock``: an offset from the clock's zero.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// await clock.advance(by: .seconds(2))
  /// #expect(clock.now == .zero.advanced(by: .seconds(2)))
  /// #expect(clock.now.offset == .seconds(2))
  /// ```
  public struct Instant: InstantProtocol, CustomStringConvertible {
    /// The time since the clock's zero.
    ///
    /// ```swift
    /// #expect(clock.now.offset == .milliseconds(80))
    /// ```
    public let offset: Duration

    /// Creates the instant `offset` after the clock's zero.
    ///
    /// ```swift
    /// await clock.advance(to: TestClock.Instant(offset: .milliseconds(80)))
    /// ```
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The instant a new clock starts at.
    ///
    /// ```swift
    /// #expect(TestClock().now == .zero)
    /// ```
    public static var zero: Instant { Instant(offset: .zero) }

    /// The instant `duration` later (earlier, when negative).
    ///
    /// ```swift
    /// let deadline = clock.now.advanced(by: .milliseconds(80))
    /// ```
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The duration from this instant to `other`.
    ///
    /// ```swift
    /// #expect(TestClock.Instant.zero.duration(to: clock.now) == .milliseconds(80))
    /// ```
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` is earlier than `rhs`.
    ///
    /// ```swift
    /// #expect(TestClock.Instant.zero < clock.now)
    /// ```
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }

    /// The offset as people write it, e.g. `80 ms`.
    ///
    /// ```swift
    /// print(clock.now)   // "80 ms"
    /// ```
    public var description: String { offset.lockstepText }
  }

  /// Internal: the `TestQueue`s on this clock keep their work here, on one timeline.
  let state = Locked(TestClockState<ClockWaiter>())

  /// Whether a deterministic run moves this clock on its own: when no job of the run is ready,
  /// the run advances the clock to its next sleeper's deadline, as it does with `Task.sleep`.
  ///
  /// ```swift
  /// let clock = TestClock(advancesAutomatically: true)
  /// #expect(clock.advancesAutomatically)
  /// ```
  public let advancesAutomatically: Bool

  /// Creates a clock at ``Instant/zero`` with no sleepers; only the test moves its time.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// let model = RetryingLoader(clock: clock)
  /// ```
  public convenience init() {
    self.init(advancesAutomatically: false)
  }

  /// Creates a clock at ``Instant/zero`` with no sleepers.
  ///
  /// With `advancesAutomatically: true`, a deterministic run
  /// (``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``,
  /// the `.deterministic` trait, ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)``)
  /// drives the clock like virtual time: when no job is ready, it advances the clock to the
  /// earliest deadline of a sleeper that went to sleep inside the run, in order with the run's
  /// other sleeps. The clock's time and the run's virtual time move together. Outside a
  /// deterministic run, and for work of a ``TestQueue``, the clock still moves only when the test
  /// advances it.
  ///
  /// ```swift
  /// let clock = TestClock(advancesAutomatically: true)
  /// try await withDeterministicScheduling {
  ///   let loader = RetryingLoader(clock: clock)   // sleeps 1 s, 2 s, 4 s between attempts
  ///   try await loader.load()                     // no advance needed
  ///   #expect(clock.now == .zero.advanced(by: .seconds(7)))
  /// }
  /// ```
  ///
  /// - Parameter advancesAutomatically: Whether deterministic runs advance the clock on their
  ///   own. With `false`, only the test moves time.
  public init(advancesAutomatically: Bool) {
    self.advancesAutomatically = advancesAutomatically
  }

  /// The current time. It changes only when the test advances the clock.
  ///
  /// ```swift
  /// await clock.advance(by: .milliseconds(80))
  /// #expect(clock.now == .zero.advanced(by: .milliseconds(80)))
  /// ```
  public var now: Instant { Instant(offset: state.withLock { $0.now }) }

  /// Zero: sleepers wake exactly at their deadlines.
  ///
  /// ```swift
  /// #expect(TestClock().minimumResolution == .zero)
  /// ```
  public var minimumResolution: Duration { .zero }

  /// How many sleepers are suspended in ``sleep(until:tolerance:)`` right now. Cancelled sleepers,
  /// sleepers that returned at once and woken sleepers are not counted.
  ///
  /// ```swift
  /// model.textChanged("swift")
  /// try await clock.waitForSleepers(count: 1)
  /// #expect(clock.sleeperCount == 1)
  /// ```
  public var sleeperCount: Int { state.withLock { $0.sleeperCount } }

  /// The deadlines of the suspended sleepers, earliest first.
  ///
  /// ```swift
  /// #expect(clock.pendingDeadlines == [.zero.advanced(by: .milliseconds(80))])
  /// ```
  public var pendingDeadlines: [Instant] {
    state.withLock { $0.pendingDeadlines }.map(Instant.init(offset:))
  }

  /// `TestClock(now: 80 ms, 1 sleeper(s), next deadline 160 ms)`.
  ///
  /// ```swift
  /// print(clock)   // the time and the pending sleepers' deadlines
  /// ```
  public var description: String {
    let (now, count, next) = state.withLock { ($0.now, $0.sleeperCount, $0.nextDeadline()) }
    return "TestClock(now: \(now.lockstepText), \(count) sleeper(s)"
      + (next.map { ", next deadline \($0.lockstepText))" } ?? ")")
  }

  /// Suspends until the test moves the clock to `deadline` or later.
  ///
  /// Production code calls this through `Clock`, usually as `clock.sleep(for:)`:
  ///
  /// ```swift
  /// func debounce(clock: any Clock<Duration>) async throws {
  ///   try await clock.sleep(for: .milliseconds(80))
  /// }
  /// ```
  ///
  /// The sleeper is registered before the task suspends. A deadline that is not in the future
  /// returns at once without suspending. `tolerance` is ignored. Called on a `TestClock`, it runs
  /// on the caller's actor and resumes there; called through `any Clock` or a generic `Clock`, it
  /// runs on the global executor, as the `Clock` protocol's requirement does (see
  /// <doc:WhatTimeItIs#Where-a-woken-sleeper-runs>).
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
  /// ```swift
  /// try await clock.sleep(for: .milliseconds(80))
  /// ```
  ///
  /// Called on a `TestClock` (rather than through `any Clock`), it runs on the caller's actor
  /// like ``sleep(until:tolerance:)``; see <doc:WhatTimeItIs#Where-a-woken-sleeper-runs>.
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

  /// Moves time forward by `duration` and wakes every sleeper that is due.
  ///
  /// ```swift
  /// try await clock.waitForSleepers(count: 1)
  /// await clock.advance(by: .milliseconds(79))       // nothing due yet
  /// #expect(await clock.advance(by: .milliseconds(1)) == 1)
  /// ```
  ///
  /// See the guarantees in ``TestClock``: `now` moves first, sleepers wake in deadline order (ties
  /// in the order they started sleeping), and each woken sleeper's `sleep` call has returned
  /// before this method returns.
  ///
  /// A negative duration is a misuse, reported as a test issue at the call site; time does not
  /// move.
  ///
  /// - Parameters:
  ///   - duration: How far to move time; a negative duration is a reported misuse.
  ///   - timeout: A failure bound for each woken sleeper to return from `sleep` (it only
  ///     elapses when the executor that runs the sleeper is blocked; a late sleeper is found
  ///     within one to two times `timeout`); reported as an issue.
  ///   - fileID: The call site's file, captured automatically; failures are reported there.
  ///   - filePath: The call site's file path, captured automatically.
  ///   - line: The call site's line, captured automatically.
  ///   - column: The call site's column, captured automatically.
  /// - Returns: How many sleepers were woken.
  @discardableResult
  nonisolated(nonsending) public func advance(
    by duration: Duration, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    return await advanceEvents(
      by: duration, caller: "TestClock.advance(by: \(duration.lockstepText))", timeout: timeout, site: site
    ).sleepers
  }

  /// Moves time forward to `deadline` and wakes every sleeper that is due.
  ///
  /// ```swift
  /// await clock.advance(to: .zero.advanced(by: .seconds(1)))
  /// #expect(clock.now.offset == .seconds(1))
  /// ```
  ///
  /// Same guarantees as ``advance(by:timeout:fileID:filePath:line:column:)``. A deadline earlier
  /// than ``now`` is a misuse, reported as a test issue at the call site; time does not move.
  /// Advancing to ``now`` does nothing.
  ///
  /// - Returns: How many sleepers were woken.
  @discardableResult
  nonisolated(nonsending) public func advance(
    to deadline: Instant, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    return await advanceEvents(
      to: deadline.offset, caller: "TestClock.advance(to: \(deadline))", timeout: timeout, site: site
    ).sleepers
  }

  /// Advances to each next deadline in turn, waking its sleepers, until no sleeper is left.
  ///
  /// ```swift
  /// let download = Task { try await loader.loadWithRetries() }
  /// try await clock.waitForSleepers(count: 1)
  /// await clock.run()
  /// ```
  ///
  /// Each step is an ``advance(to:timeout:fileID:filePath:line:column:)`` to the earliest
  /// deadline. A woken sleeper that sleeps again before the next step looks for a deadline is
  /// included; one that gets there later is not — `run()` cannot know whether a woken sleeper
  /// is going to sleep again. When the code under test sleeps more than once, advance step by step
  /// and call ``waitForSleepers(count:timeout:fileID:filePath:line:column:)`` in between.
  ///
  /// - Parameters:
  ///   - timeout: A failure bound in real time: if sleepers are still left after it (code
  ///     that sleeps in an endless loop), an issue naming them is reported and `run` returns.
  ///   - fileID: The call site's file, captured automatically; failures are reported there.
  ///   - filePath: The call site's file path, captured automatically.
  ///   - line: The call site's line, captured automatically.
  ///   - column: The call site's column, captured automatically.
  /// - Returns: How many sleepers were woken.
  @discardableResult
  nonisolated(nonsending) public func run(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    return await runEvents(caller: "TestClock.run()", timeout: timeout, site: site).sleepers
  }

  /// Waits until at least `count` sleepers are suspended in ``sleep(until:tolerance:)`` — the way
  /// a test knows the code under test has really reached its sleep before it moves time.
  ///
  /// ```swift
  /// model.textChanged("swift")
  /// try await clock.waitForSleepers(count: 1)
  /// await clock.advance(by: .milliseconds(80))
  /// ```
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
