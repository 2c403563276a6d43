import Dispatch

/// Lets one deterministic run proceed at a time in the process, so that main-actor work of two
/// runs never overlaps. First come, first served.
final class RunSerializer: Sendable {
  static let shared = RunSerializer()

  private struct State {
    var held = false
    var waiters: [@Sendable () -> Void] = []

    /// Takes the lock if it is free.
    mutating func takeIfFree() -> Bool {
      if held { return false }
      held = true
      return true
    }
  }
  private let state = Locked(State())

  nonisolated(nonsending) func acquire() async {
    // A free lock is taken without a continuation (a free lock has nobody queued: `release()`
    // hands it straight to the next waiter).
    if state.withLock({ $0.takeIfFree() }) { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      if take(orQueue: { continuation.resume() }) { continuation.resume() }
    }
  }

  func acquireBlocking() {
    let semaphore = DispatchSemaphore(value: 0)
    if !take(orQueue: { semaphore.signal() }) { semaphore.wait() }
  }

  /// Takes the lock if it is free (`true`); otherwise queues `resume`, which ``release()`` calls
  /// when the lock passes to this waiter.
  private func take(orQueue resume: @escaping @Sendable () -> Void) -> Bool {
    state.withLock { state in
      if state.takeIfFree() { return true }
      state.waiters.append(resume)
      return false
    }
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
