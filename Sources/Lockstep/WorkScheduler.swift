#if canImport(Dispatch)
  public import Dispatch
#endif

/// Schedules closures to run later — at once, after a delay or at a deadline — the way legacy code
/// uses `DispatchQueue.main.async` and `asyncAfter`, so that a test can decide when they run.
///
/// Write production code against `WorkScheduler` instead of a `DispatchQueue`. In the app, pass the
/// queue itself (`DispatchQueue` conforms); in a test, pass a `TestQueue` from `LockstepTesting`,
/// which runs nothing until the test advances its virtual time.
///
/// ```swift
/// final class SearchField {
///   private let main: any WorkScheduler
///   private var pending: ScheduledWork?
///
///   init(main: any WorkScheduler = DispatchQueue.main) { self.main = main }
///
///   func textChanged(_ text: String) {
///     pending?.cancel()
///     pending = main.schedule(after: .milliseconds(300)) {
///       MainActor.assumeIsolated { self.search(text) }   // on the main queue, as before
///     }
///   }
/// }
/// ```
///
/// Deadlines are ``SchedulerTime`` values read from the scheduler's own ``now``, never
/// `DispatchTime`. The closures are `@Sendable` and not isolated to an actor; conform your own
/// type to wrap another scheduler by implementing ``now`` and ``submit(at:site:_:)``.
public protocol WorkScheduler: Sendable {
  /// The scheduler's current time, the reference for ``schedule(at:fileID:filePath:line:column:_:)``.
  var now: SchedulerTime { get }

  /// Schedules `work` to run at `deadline`, or as soon as possible when `deadline` is `nil`. Call
  /// ``schedule(fileID:filePath:line:column:_:)`` and its siblings instead; this requirement is
  /// what conforming types implement.
  ///
  /// - Returns: A handle that cancels the work if it has not started yet.
  func submit(
    at deadline: SchedulerTime?, site: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> ScheduledWork
}

extension WorkScheduler {
  /// Schedules `work` to run as soon as possible, like `DispatchQueue.async(execute:)`.
  ///
  /// - Returns: A handle to cancel the work before it starts; ignore it when you never cancel.
  @discardableResult
  public func schedule(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column,
    _ work: @escaping @Sendable () -> Void
  ) -> ScheduledWork {
    submit(
      at: nil, site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), work)
  }

  /// Schedules `work` to run once `delay` has passed, like `asyncAfter(deadline: .now() + delay)`.
  /// A delay of zero or less runs the work as soon as possible.
  ///
  /// - Returns: A handle to cancel the work before it starts.
  @discardableResult
  public func schedule(
    after delay: Duration,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column,
    _ work: @escaping @Sendable () -> Void
  ) -> ScheduledWork {
    submit(
      at: now.advanced(by: max(delay, .zero)),
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), work)
  }

  /// Schedules `work` to run at `deadline` (a time read from ``now``), like
  /// `asyncAfter(deadline:execute:)`. A deadline that has passed runs the work as soon as possible.
  ///
  /// - Returns: A handle to cancel the work before it starts.
  @discardableResult
  public func schedule(
    at deadline: SchedulerTime,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column,
    _ work: @escaping @Sendable () -> Void
  ) -> ScheduledWork {
    submit(
      at: deadline, site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      work)
  }
}

/// A point in a ``WorkScheduler``'s time: an offset from the scheduler's own zero. Read it from
/// ``WorkScheduler/now`` and move it with `advanced(by:)`; compare only times of one scheduler.
///
/// ```swift
/// let deadline = queue.now.advanced(by: .milliseconds(300))
/// queue.schedule(at: deadline) { flush() }
/// ```
public struct SchedulerTime: InstantProtocol, CustomStringConvertible {
  /// The time since the scheduler's zero (system uptime for a `DispatchQueue`, the test's
  /// virtual time for a `TestQueue`).
  public let offset: Duration

  /// Creates the time `offset` after the scheduler's zero.
  public init(offset: Duration) {
    self.offset = offset
  }

  /// The time `duration` later (earlier, when negative).
  public func advanced(by duration: Duration) -> SchedulerTime {
    SchedulerTime(offset: offset + duration)
  }

  /// The duration from this time to `other`.
  public func duration(to other: SchedulerTime) -> Duration {
    other.offset - offset
  }

  /// Whether `lhs` is earlier than `rhs`.
  public static func < (lhs: SchedulerTime, rhs: SchedulerTime) -> Bool {
    lhs.offset < rhs.offset
  }

  /// The offset as people write it, e.g. `1.5 s` or `300 ms`.
  public var description: String { offset.lockstepText }
}

/// The handle of work scheduled on a ``WorkScheduler``: cancel it to keep the work from running,
/// like `DispatchWorkItem.cancel()`.
///
/// ```swift
/// pending?.cancel()
/// pending = queue.schedule(after: .seconds(1)) { save() }
/// ```
///
/// Cancelling is thread-safe, idempotent, and does nothing once the work has started.
public final class ScheduledWork: Sendable {
  private let cancelWork: @Sendable () -> Void
  private let readCancelled: @Sendable () -> Bool

  /// Creates a handle; a custom ``WorkScheduler`` passes how to cancel its work and how to tell
  /// whether it was cancelled.
  public init(cancel: @escaping @Sendable () -> Void, isCancelled: @escaping @Sendable () -> Bool) {
    cancelWork = cancel
    readCancelled = isCancelled
  }

  /// Keeps the work from running if it has not started yet.
  public func cancel() { cancelWork() }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool { readCancelled() }
}

#if canImport(Dispatch)
  /// A `DispatchQueue` is the production ``WorkScheduler``: `schedule` calls `async` or
  /// `asyncAfter` with a `DispatchWorkItem`, and ``now`` is `DispatchTime.now()`.
  extension DispatchQueue: WorkScheduler {
    /// `DispatchTime.now()`, as a ``SchedulerTime`` (nanoseconds of uptime).
    public var now: SchedulerTime {
      SchedulerTime(offset: .nanoseconds(DispatchTime.now().uptimeNanoseconds))
    }

    /// Submits `work` as a `DispatchWorkItem` with `async` (no deadline) or `asyncAfter`.
    public func submit(
      at deadline: SchedulerTime?, site: CallSite, _ work: @escaping @Sendable () -> Void
    ) -> ScheduledWork {
      let item = SendableWorkItem(DispatchWorkItem(block: work))
      if let deadline {
        let nanoseconds = max(deadline.offset, .zero) / .nanoseconds(1)
        let uptime =
          nanoseconds >= Double(UInt64.max)
          ? DispatchTime.distantFuture
          : DispatchTime(
            uptimeNanoseconds: UInt64(nanoseconds))
        asyncAfter(deadline: uptime, execute: item.item)
      } else {
        async(execute: item.item)
      }
      return ScheduledWork(cancel: { item.item.cancel() }, isCancelled: { item.item.isCancelled })
    }
  }

  /// `DispatchWorkItem` is thread-safe but not marked `Sendable` on every platform.
  private struct SendableWorkItem: @unchecked Sendable {
    let item: DispatchWorkItem
    init(_ item: DispatchWorkItem) { self.item = item }
  }
#endif
