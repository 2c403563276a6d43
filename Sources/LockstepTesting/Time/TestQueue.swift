/// A ``WorkScheduler`` that records the work it is given and runs nothing until the test says so:
/// legacy code that uses `DispatchQueue.main.async`, `asyncAfter` and work items becomes as
/// deterministic as code that uses async/await.
///
/// Production code takes `any WorkScheduler` (`DispatchQueue.main` in the app); the test passes a
/// `TestQueue` and runs the work when it wants to:
///
/// ```swift
/// @MainActor @Test(.timeLimit(.minutes(1)))
/// func savesOnceASecondAfterTheFirstEdit() async {
///   let main = TestQueue()
///   let saver = ThrottledSaver(queue: main, interval: .seconds(1)) { saved.append($0) }
///   saver.edit("a"); saver.edit("ab")
///   await main.advance(by: .milliseconds(999))
///   #expect(saved.isEmpty)
///   await main.advance(by: .milliseconds(1))
///   #expect(saved == ["ab"])
/// }
/// ```
///
/// ## Running work
/// - ``runDueWork(timeout:fileID:filePath:line:column:)`` runs this queue's work that is due now,
///   including work that work scheduled for now, synchronously and without moving time.
/// - ``advance(by:timeout:fileID:filePath:line:column:)`` and
///   ``advance(to:timeout:fileID:filePath:line:column:)`` move virtual time and run the work that is
///   due, in deadline order, ties in the order it was scheduled.
/// - ``run(timeout:fileID:filePath:line:column:)`` advances to each next deadline in turn until no
///   work is left.
///
/// Work runs on the thread that calls these methods, one item at a time, outside every lock, so
/// work may schedule or cancel more work. Cancelled work never runs. Moving time backwards is a
/// misuse, reported as a test issue at the call site.
///
/// ## One timeline with a `TestClock`
/// A queue's time *is* its ``clock``'s time. Create the queue with the clock that the rest of the
/// model sleeps on, `TestQueue(clock: clock)`, and advancing either one advances both: sleepers of
/// the clock and work of every queue on it happen interleaved in deadline order, ties in the order
/// they were registered. As with ``TestClock/advance(by:timeout:fileID:filePath:line:column:)``,
/// an advance is one jump: ``now`` is the target before anything runs, so work scheduled after a
/// delay by work that ran during the advance is due after the target. ``run(timeout:fileID:filePath:line:column:)``
/// steps from deadline to deadline instead.
///
/// ## The main actor
/// Legacy code that schedules UI work on `DispatchQueue.main` expects it on the main thread, and
/// usually enters the main actor with `MainActor.assumeIsolated { }` inside the work. Drive the
/// queue from a `@MainActor` test: the work then runs on the main actor, where that check passes,
/// exactly as it does on the main queue in the app. (The `advance` and `run` methods are
/// `nonisolated(nonsending)`, so they run the work on the caller's actor too.)
public final class TestQueue: WorkScheduler, CustomStringConvertible {
  /// The clock whose time this queue shares. Advancing it runs this queue's due work too.
  ///
  /// ```swift
  /// let queue = TestQueue()
  /// let model = Poller(queue: queue, clock: queue.clock)
  /// ```
  public let clock: TestClock

  private let id = WaiterID.next()
  private let label: String

  /// Creates a queue on `clock`'s timeline; with no clock, on a new clock of its own.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// let main = TestQueue("main", clock: clock)
  /// let model = LegacyModel(main: main, clock: clock)
  /// ```
  ///
  /// - Parameters:
  ///   - label: A name used in descriptions and failure messages.
  ///   - clock: The clock whose timeline the queue shares: advancing either one advances both.
  public init(_ label: String = "TestQueue", clock: TestClock = TestClock()) {
    self.label = label
    self.clock = clock
  }

  /// The current virtual time: the ``clock``'s time, as a ``SchedulerTime``.
  ///
  /// ```swift
  /// await queue.advance(by: .seconds(1))
  /// #expect(queue.now == SchedulerTime(offset: .seconds(1)))
  /// ```
  public var now: SchedulerTime { SchedulerTime(offset: clock.now.offset) }

  /// Records `work` to run at `deadline` (now when `nil` or in the past). Production code calls
  /// this through ``WorkScheduler/schedule(fileID:filePath:line:column:_:)`` and its siblings.
  ///
  /// ```swift
  /// queue.schedule(after: .seconds(1)) { print("later") }
  /// #expect(queue.pendingCount == 1)
  /// ```
  public func submit(
    at deadline: SchedulerTime?, site: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> ScheduledWork {
    let workID = WaiterID.next()
    let handle = CancellationFlag()
    let queue = id
    let state = clock.state
    state.withLock { $0.schedule(workID, on: queue, at: deadline?.offset, site: site, work) }
    return ScheduledWork(
      cancel: {
        state.withLock {
          handle.isCancelled = true
          _ = $0.cancelWork(workID)
        }
      },
      isCancelled: { state.withLock { _ in handle.isCancelled } })
  }

  /// How many work items are scheduled on this queue and have neither run nor been cancelled.
  ///
  /// ```swift
  /// loader.load(url) { _ in }
  /// #expect(main.pendingCount == 1)
  /// ```
  public var pendingCount: Int {
    let queue = id
    return clock.state.withLock { $0.pendingWorkCount(of: queue) }
  }

  /// The deadlines of the pending work, in the order it will run.
  ///
  /// ```swift
  /// queue.schedule(after: .seconds(2)) {}
  /// #expect(queue.pendingDeadlines == [SchedulerTime(offset: .seconds(2))])
  /// ```
  public var pendingDeadlines: [SchedulerTime] {
    let queue = id
    return clock.state.withLock { $0.pendingWork(of: queue) }.map {
      SchedulerTime(offset: $0.deadline)
    }
  }

  /// `main: 2 pending at 0.0 seconds, 1.0 seconds (now 0.0 seconds), scheduled at File.swift:12:7, …`.
  ///
  /// ```swift
  /// print(queue)   // the label, the time and the pending work
  /// ```
  public var description: String {
    let queue = id
    let (now, pending) = clock.state.withLock { ($0.now, $0.pendingWork(of: queue)) }
    guard !pending.isEmpty else { return "\(label): nothing pending (now \(now.lockstepText))" }
    let items = pending.prefix(5).map { "at \($0.deadline.lockstepText), scheduled at \($0.site)" }
    return "\(label): \(pending.count) pending (now \(now.lockstepText)): " + items.joined(separator: "; ")
      + (pending.count > 5 ? "; …" : "")
  }

  /// Runs this queue's work that is due now — including work scheduled for now by that work — on
  /// the calling thread, without moving time. Work of other queues and sleepers of the clock are
  /// left alone.
  ///
  /// ```swift
  /// loader.load(url) { image = $0 }
  /// background.runDueWork()       // downloads and hops to main
  /// #expect(image == nil)
  /// main.runDueWork()             // delivers
  /// #expect(image != nil)
  /// ```
  ///
  /// - Parameters:
  ///   - timeout: A failure bound in real time for work that keeps scheduling work for now
  ///     in an endless loop: reported as an issue, and the method returns.
  ///   - fileID: The call site's file, captured automatically; failures are reported there.
  ///   - filePath: The call site's file path, captured automatically.
  ///   - line: The call site's line, captured automatically.
  ///   - column: The call site's column, captured automatically.
  /// - Returns: How many work items ran.
  @discardableResult
  public func runDueWork(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Int {
    let queue = id
    let state = clock.state
    let limit = RealTime.now.advanced(by: timeout)
    var count = 0
    while let item = state.withLock({ $0.takeNextWork(of: queue, upTo: $0.now) }) {
      item.body()
      count += 1
      if count % 4096 == 0, RealTime.now >= limit {
        reportIssue(
          "TestQueue.runDueWork() gave up after \(timeout.lockstepText) of real time: work due now keeps "
            + "scheduling more work due now (an endless loop?). \(self)",
          at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        break
      }
    }
    return count
  }

  /// Moves virtual time forward by `duration` and runs the work that is due, in deadline order
  /// (ties in the order it was scheduled), interleaved with the clock's sleepers.
  ///
  /// ```swift
  /// saver.edit("draft")
  /// await queue.advance(by: .seconds(1))
  /// #expect(store.saved == ["draft"])
  /// ```
  ///
  /// Advancing is one jump: ``now`` is the target before any work runs. Every queue on the
  /// ``clock`` runs its due work, and the clock's due sleepers wake, as in
  /// ``TestClock/advance(by:timeout:fileID:filePath:line:column:)``. A negative duration is a
  /// misuse, reported as a test issue at the call site; time does not move.
  ///
  /// - Parameters:
  ///   - duration: How far to move time; a negative duration is a reported misuse.
  ///   - timeout: A failure bound in real time (a woken sleeper that does not return from
  ///     `sleep`, work that schedules work for now in an endless loop); reported as an issue.
  ///   - fileID: The call site's file, captured automatically; failures are reported there.
  ///   - filePath: The call site's file path, captured automatically.
  ///   - line: The call site's line, captured automatically.
  ///   - column: The call site's column, captured automatically.
  /// - Returns: How many work items ran, on every queue of the clock.
  @discardableResult
  nonisolated(nonsending) public func advance(
    by duration: Duration, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    return await clock.advanceEvents(
      by: duration, caller: "TestQueue.advance(by: \(duration.lockstepText))", timeout: timeout, site: site
    ).work
  }

  /// Moves virtual time forward to `deadline` and runs the work that is due, like
  /// ``advance(by:timeout:fileID:filePath:line:column:)``.
  ///
  /// ```swift
  /// await queue.advance(to: SchedulerTime(offset: .seconds(2)))
  /// ```
  ///
  /// A deadline earlier than ``now`` is a misuse, reported as a test issue at the call site; time
  /// does not move. Advancing to ``now`` runs the work that is due now on every queue of the clock.
  ///
  /// - Returns: How many work items ran, on every queue of the clock.
  @discardableResult
  nonisolated(nonsending) public func advance(
    to deadline: SchedulerTime, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    return await clock.advanceEvents(
      to: deadline.offset, caller: "TestQueue.advance(to: \(deadline))", timeout: timeout, site: site
    ).work
  }

  /// Advances to each next deadline in turn — of this queue's work, of other queues on the clock
  /// and of the clock's sleepers — running what is due, until nothing is left.
  ///
  /// ```swift
  /// poller.start()
  /// await queue.run()
  /// #expect(poller.attempts == 3)
  /// ```
  ///
  /// Unlike one big advance, every step moves time only to the next deadline, so work that
  /// reschedules itself runs at each of its deadlines.
  ///
  /// - Parameters:
  ///   - timeout: A failure bound in real time: if work is still left after it (work that
  ///     reschedules itself forever), an issue naming it is reported and `run` returns.
  ///   - fileID: The call site's file, captured automatically; failures are reported there.
  ///   - filePath: The call site's file path, captured automatically.
  ///   - line: The call site's line, captured automatically.
  ///   - column: The call site's column, captured automatically.
  /// - Returns: How many work items ran, on every queue of the clock.
  @discardableResult
  nonisolated(nonsending) public func run(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    return await clock.runEvents(caller: "TestQueue.run()", timeout: timeout, site: site).work
  }
}

/// Whether a work item's handle was cancelled; read and written only under the clock's lock.
private final class CancellationFlag: @unchecked Sendable {
  var isCancelled = false
}
