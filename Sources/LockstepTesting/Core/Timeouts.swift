import Dispatch

/// Starts the failure bounds of Lockstep's waits.
///
/// A bound is a Dispatch timer, not a Swift task: it costs about a microsecond, never polls, and
/// no executor — the deterministic scheduler included — ever sees it. Inside a deterministic run
/// (on its drain thread) the bound is instead a timer of the run, in its virtual time: a wait that
/// can never end fails at once instead of after real seconds, and the bound is neither a job of
/// the trace nor a choice of an exploration.
enum Timeouts {
  /// Calls `expire` once `timeout` has elapsed, unless the returned handle is cancelled first.
  /// In real time, the bound is lengthened by `LOCKSTEP_TIMEOUT_SCALE` (``FailureBoundScale``).
  static func start(
    after timeout: Duration, _ expire: @escaping @Sendable () -> Void
  ) -> any CancellableTask {
    if let timer = CurrentRun.startTimer(after: timeout, expire) {
      return timer
    }
    return startInRealTime(after: FailureBoundScale.scaled(timeout), expire)
  }

  /// A Dispatch timer, whatever thread this is.
  static func startInRealTime(
    after timeout: Duration, _ expire: @escaping @Sendable () -> Void
  ) -> any CancellableTask {
    let item = DispatchWorkItem(block: expire)
    let nanoseconds = timeout.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
    let delay: DispatchTimeInterval =
      nanoseconds.overflow || nanoseconds.partialValue > Int64(Int.max)
      ? .never
      : .nanoseconds(Int(nanoseconds.partialValue + timeout.components.attoseconds / 1_000_000_000))
    // Real time, also when called by a job of a run that reads virtual now.
    DispatchQueue.global().asyncAfter(deadline: RealTime.reading { .now() } + delay, execute: item)
    return DispatchTimer(item: item)
  }
}

/// A scheduled Dispatch work item; cancelling it is thread-safe.
private struct DispatchTimer: CancellableTask, @unchecked Sendable {
  let item: DispatchWorkItem
  func cancel() { item.cancel() }
}
