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

/// What a primitive decided when a waiter arrived.
enum Arrival<Value> {
  /// The waiter was stored and suspends until resumed, timed out or cancelled.
  case suspended
  /// The waiter does not need to wait.
  case resumeNow(Result<Value, any Error>)
}

/// A continuation to resume with a result, decided under a lock and applied after it.
struct Resumption<Value: Sendable>: Sendable {
  let waiter: Waiter<Value>
  let result: Result<Value, any Error>

  func callAsFunction() { waiter.resume(with: result) }
}

/// Suspends the current task as a waiter of a primitive, bounded by `timeout` and ended early by
/// cancellation.
///
/// - `arrive` runs synchronously (the primitive takes its lock inside) and either stores the
///   continuation under `id` or says the waiter can go on at once.
/// - `depart` removes the waiter if it is still stored and returns it; the caller of `depart` —
///   timeout or cancellation — then resumes it. Whoever removes a waiter resumes it, exactly once.
/// - `timeoutError` describes, when the limit elapses, what was still pending; it runs before the
///   timed-out waiter is removed, so the waiter still counts as pending.
///
/// The limit is only a failure bound: the timer is a real-time sleep that a passing test cancels.
func suspend<Value: Sendable>(
  timeout: Duration,
  arrive: (WaiterID, Waiter<Value>) -> Arrival<Value>,
  depart: @escaping @Sendable (WaiterID) -> Waiter<Value>?,
  timeoutError: @escaping @Sendable () -> any Error
) async throws -> Value {
  let id = WaiterID.next()
  let timer = Locked<Task<Void, Never>?>(nil)
  defer { timer.withLock { $0 }?.cancel() }
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { (continuation: Waiter<Value>) in
      switch arrive(id, continuation) {
      case .resumeNow(let result):
        continuation.resume(with: result)
      case .suspended:
        // Cancellation that came before the waiter was stored found nothing to remove; the flag
        // is already set, so check it now that the waiter is stored.
        if Task.isCancelled {
          depart(id)?.resume(throwing: CancellationError())
          return
        }
        let task = Task.detached {
          do {
            try await Task.sleep(for: timeout)
          } catch {
            return  // the wait ended first
          }
          // Describe what is pending while this waiter still counts as pending.
          let error = timeoutError()
          depart(id)?.resume(throwing: error)
        }
        timer.withLock { $0 = task }
      }
    }
  } onCancel: {
    depart(id)?.resume(throwing: CancellationError())
  }
}
