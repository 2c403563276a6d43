/// A ``WorkScheduler`` that records the work it is given and runs nothing until the test says so:
/// legacy code that uses `DispatchQueue.main.async`, `asyncAfter` and work items becomes as
/// deterministic as code that uses async/await.
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
/// Work runs on the caller of ``runDueWork(timeout:fileID:filePath:line:column:)``, `advance` or
/// `run`, one item at a time and outside every lock; cancelled work never runs. A queue's time is
/// its ``clock``'s time: advancing either one runs the work and wakes the sleepers due, in one
/// deadline order. See <doc:WhatTimeItIs#Legacy-Dispatch-code>.
public final class TestQueue: WorkScheduler, CustomStringConvertible {
  /// The clock whose time this queue shares. Advancing it runs this queue's due work too.
  public let clock: TestClock

  private let id = WaiterID.next()
  private let label: String

  /// Creates a queue on `clock`'s timeline; with no clock, on a new clock of its own.
  ///
  /// - Parameters:
  ///   - label: A name used in descriptions and failure messages.
  ///   - clock: The clock whose timeline the queue shares: advancing either one advances both.
  public init(_ label: String = "TestQueue", clock: TestClock = TestClock()) {
    self.label = label
    self.clock = clock
  }

  /// The current virtual time: the ``clock``'s time, as a ``SchedulerTime``.
  public var now: SchedulerTime { SchedulerTime(offset: clock.now.offset) }

  /// Records `work` to run at `deadline` (now when `nil` or in the past). Production code calls
  /// this through ``WorkScheduler/schedule(fileID:filePath:line:column:_:)`` and its siblings.
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
  public var pendingCount: Int {
    let queue = id
    return clock.state.withLock { $0.pendingWorkCount(of: queue) }
  }

  /// The deadlines of the pending work, in the order it will run.
  public var pendingDeadlines: [SchedulerTime] {
    let queue = id
    return clock.state.withLock { $0.pendingWork(of: queue) }.map {
      SchedulerTime(offset: $0.deadline)
    }
  }

  /// `main: 2 pending at 0.0 seconds, 1.0 seconds (now 0.0 seconds), scheduled at File.swift:12:7, …`.
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
  /// - Parameters:
  ///   - timeout: A failure bound in real time for work that keeps scheduling work for
  ///     now in an endless loop: reported as an issue, and the method returns.
  /// - Returns: How many work items ran.
  @discardableResult
  public func runDueWork(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Int {
    let queue = id
    let state = clock.state
    let limit = RealTime.now.advanced(by: FailureBoundScale.scaled(timeout))
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    var count = 0
    while let item = state.withLock({ $0.takeNextWork(of: queue, upTo: $0.now) }) {
      item.body()
      count += 1
      if endlessWork(
        after: count, limit: limit, caller: "TestQueue.runDueWork()", timeout: timeout, in: self, site: site)
      {
        break
      }
    }
    return count
  }

  /// Moves virtual time forward by `duration` and runs the work that is due on every queue of
  /// the ``clock``, interleaved with its sleepers, as in
  /// ``TestClock/advance(by:timeout:fileID:filePath:line:column:)``.
  ///
  /// - Parameters:
  ///   - duration: How far to move time; a negative duration is a reported misuse.
  ///   - timeout: A failure bound in real time (a woken sleeper that does not return from
  ///     `sleep`, work that schedules work for now in an endless loop); reported as an issue.
  /// - Returns: How many work items ran, on every queue of the clock.
  @discardableResult
  nonisolated(nonsending) public func advance(
    by duration: Duration, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    await clock.advanceEvents(
      .by(duration), caller: "TestQueue.advance(by: \(duration.lockstepText))", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    ).work
  }

  /// Moves virtual time forward to `deadline` and runs the work that is due, like
  /// ``advance(by:timeout:fileID:filePath:line:column:)``.
  ///
  /// - Returns: How many work items ran, on every queue of the clock.
  @discardableResult
  nonisolated(nonsending) public func advance(
    to deadline: SchedulerTime, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    await clock.advanceEvents(
      .to(deadline.offset), caller: "TestQueue.advance(to: \(deadline))", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    ).work
  }

  /// Advances to each next deadline in turn — of the work of every queue on the clock and of its
  /// sleepers — running what is due, until nothing is left.
  ///
  /// - Parameters:
  ///   - timeout: A failure bound in real time: if work is still left after it (work that
  ///     reschedules itself forever), an issue naming it is reported and `run` returns.
  /// - Returns: How many work items ran, on every queue of the clock.
  @discardableResult
  nonisolated(nonsending) public func run(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Int {
    await clock.advanceEvents(
      .run, caller: "TestQueue.run()", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    ).work
  }
}

/// Whether a work item's handle was cancelled; read and written only under the clock's lock.
private final class CancellationFlag: @unchecked Sendable {
  var isCancelled = false
}
