/// Identifies one suspended waiter of a Lockstep primitive. Unique in the process, never reused,
/// so a late timeout or cancellation can never remove somebody else's waiter.
struct WaiterID: Hashable, Comparable, Sendable, CustomStringConvertible {
  let rawValue: UInt64

  private static let counter = Locked<UInt64>(0)

  static func next() -> WaiterID {
    WaiterID(
      rawValue: counter.withLock {
        $0 += 1
        return $0
      })
  }

  static func < (lhs: WaiterID, rhs: WaiterID) -> Bool { lhs.rawValue < rhs.rawValue }
  var description: String { "#\(rawValue)" }
}

/// The continuation a primitive stores for a waiter.
typealias Waiter<Value> = CheckedContinuation<Value, any Error>

/// Suspends the current task as a waiter of a primitive, bounded by `timeout` and ended early by
/// cancellation. Every bounded wait in Lockstep goes through here.
///
/// - `arrive` runs synchronously (the primitive takes its lock inside) and either stores the
///   continuation under `id` and returns `true`, or returns `false` when there is nothing to wait
///   for.
/// - Whoever removes a stored waiter resumes it, exactly once: the primitive when the awaited
///   event happens, or this function through `depart` on timeout or cancellation.
/// - `what` names the awaited event for timelines and deadlock reports of a deterministic run.
/// - `timeoutError` describes, when the limit elapses, what was still pending; it runs before the
///   timed-out waiter is removed, so the waiter still counts as pending.
///
/// The limit is only a failure bound: a Dispatch timer (see ``Timeouts``) that a passing test
/// cancels. The function is `nonisolated(nonsending)`: it runs on the caller's actor and leaves it
/// only while suspended.
nonisolated(nonsending) func suspend(
  awaiting what: @autoclosure () -> String,
  timeout: Duration,
  arrive: (WaiterID, Waiter<Void>) -> Bool,
  depart: @escaping @Sendable (WaiterID) -> Waiter<Void>?,
  timeoutError: @escaping @Sendable () -> any Error
) async throws {
  let id = WaiterID.next()
  let timer = Locked<(any CancellableTask)?>(nil)
  defer { timer.withLock { $0 }?.cancel() }
  try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { (continuation: Waiter<Void>) in
      guard arrive(id, continuation) else {
        continuation.resume()
        return
      }
      // Cancellation that came before the waiter was stored found nothing to remove; the flag is
      // already set, so check it now that the waiter is stored.
      if Task.isCancelled {
        depart(id)?.resume(throwing: CancellationError())
        return
      }
      // Inside a deterministic run, tell the timeline. Exploration may cancel the task right
      // here: the cancellation handler then ends the wait at once.
      if noteLockstepWait(for: what()) { return }
      let bound = Timeouts.start(after: timeout) {
        // Describe what is pending while this waiter still counts as pending.
        let error = timeoutError()
        depart(id)?.resume(throwing: error)
      }
      timer.withLock { $0 = bound }
    }
  } onCancel: {
    depart(id)?.resume(throwing: CancellationError())
  }
}
