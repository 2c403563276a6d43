/// A Lockstep wait: suspends the current task as a waiter of a primitive, bounded by `timeout`
/// and ended early by cancellation. Every bounded wait of Lockstep's primitives goes through
/// here, so that they all behave alike in tests, timelines and deadlock reports.
///
/// - `awaited` names the awaited event, in the words a ``WaitTimeoutError`` and a timeline use
///   ("Gate(\"save\") to open").
/// - `arrive` runs synchronously (the primitive takes its lock inside) and either stores the
///   continuation under `id` and returns `true`, or returns `false` when there is nothing to wait
///   for.
/// - Whoever removes a stored waiter resumes it, exactly once: the primitive when the awaited
///   event happens, or this function through `depart` on timeout or cancellation.
/// - `pending` says, when the limit elapses, what was still pending; it runs before the
///   timed-out waiter is removed, so the waiter still counts as pending. The wait then throws a
///   ``WaitTimeoutError`` naming `awaited`, `timeout`, `site` and what was pending.
///
/// The limit is only a failure bound: a Dispatch timer (see ``Timeouts``) that a passing test
/// cancels, or a timer in virtual time inside a deterministic run. The function runs on the
/// caller's actor (`isolation`, leave the default) and leaves it only while suspended: a wait that
/// need not suspend costs no thread hop, and a resumed one goes straight back to the caller's
/// actor.
func lockstepWait(
  for awaited: @autoclosure @escaping @Sendable () -> String,
  timeout: Duration,
  site: CallSite,
  isolation: isolated (any Actor)? = #isolation,
  arrive: (WaiterID, Waiter<Void>) -> Bool,
  depart: @escaping @Sendable (WaiterID) -> Waiter<Void>?,
  pending: @escaping @Sendable () -> [String]
) async throws {
  let id = WaiterID.next()
  let timer = Locked<(any CancellableTask)?>(nil)
  defer { timer.withLock { $0 }?.cancel() }
  try await withTaskCancellationHandler {
    // Capturing the isolated parameter keeps this closure on the caller's actor: without it, the
    // closure is nonisolated and its wait would resume on the global executor, then hop back.
    _ = isolation
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
      if CurrentRun.noteWait(for: awaited()) { return }
      let bound = Timeouts.start(after: timeout) {
        // Describe what is pending while this waiter still counts as pending.
        let error = WaitTimeoutError(
          awaited: awaited(), timeout: timeout, site: site, pending: pending(),
          isVirtualTime: CurrentRun.isActive, scale: FailureBoundScale.current)
        depart(id)?.resume(throwing: error)
      }
      timer.withLock { $0 = bound }
    }
  } onCancel: {
    depart(id)?.resume(throwing: CancellationError())
  }
}

extension Locked {
  /// The shell of every bounded wait on a primitive's pure state:
  /// ``lockstepWait(for:timeout:site:isolation:arrive:depart:pending:)`` with the state machine's
  /// decisions applied under this lock, and the continuations they hand back resumed after
  /// unlocking.
  ///
  /// - `arrive` stores the waiter (returning `true`) or finds nothing to wait for (`false`), and
  ///   returns the other waiters the arrival satisfied.
  /// - `depart` takes the waiter back on timeout or cancellation, if it is still stored.
  /// - `pending` describes, from a copy of the state taken before the waiter departs, what was
  ///   still pending when the limit elapsed; it runs outside the lock.
  func wait(
    for awaited: @autoclosure @escaping @Sendable () -> String,
    timeout: Duration,
    site: CallSite,
    isolation: isolated (any Actor)? = #isolation,
    arrive: (inout State, WaiterID, Waiter<Void>) -> (Bool, [Waiter<Void>]),
    depart: @escaping @Sendable (inout State, WaiterID) -> Waiter<Void>?,
    pending: @escaping @Sendable (State) -> [String]
  ) async throws {
    try await wait(
      for: awaited(), timeout: timeout, site: site, isolation: isolation, arrive: arrive,
      afterUnlocking: { satisfied in for waiter in satisfied { waiter.resume() } },
      depart: depart, pending: pending)
  }

  /// The same shell for an arrival whose decision needs more than resuming waiters: `arrive`
  /// returns whether the waiter suspends and a decision that `afterUnlocking` applies outside
  /// the lock.
  func wait<Decision>(
    for awaited: @autoclosure @escaping @Sendable () -> String,
    timeout: Duration,
    site: CallSite,
    isolation: isolated (any Actor)? = #isolation,
    arrive: (inout State, WaiterID, Waiter<Void>) -> (Bool, Decision),
    afterUnlocking apply: (Decision) -> Void,
    depart: @escaping @Sendable (inout State, WaiterID) -> Waiter<Void>?,
    pending: @escaping @Sendable (State) -> [String]
  ) async throws {
    try await lockstepWait(
      for: awaited(), timeout: timeout, site: site, isolation: isolation,
      arrive: { id, waiter in
        let (suspends, decision) = withLock { arrive(&$0, id, waiter) }
        apply(decision)
        return suspends
      },
      depart: { id in self.withLock { depart(&$0, id) } },
      pending: { pending(self.value) })
  }
}
