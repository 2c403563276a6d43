/// Timers in the run's virtual time that are not jobs: failure bounds, and wake-ups that count as
/// progress (``RunTimers``).
extension RunState {
  /// Starts a timer that calls `action` after `delay` of virtual time: a failure bound, or with
  /// `wakes`, a wake-up that counts as progress. `nil` when the run is over (the caller uses a
  /// real-time bound instead).
  mutating func startTimer(
    after delay: Duration, wakes: Bool = false, _ action: @escaping @Sendable () -> Void
  ) -> UInt64? {
    guard phase == .running else { return nil }
    return timers.start(at: time.now + max(delay, .zero), wakes: wakes, action)
  }

  /// Removes a timer, returning its action if it had not fired yet.
  mutating func removeTimer(_ id: UInt64) -> (@Sendable () -> Void)? { timers.remove(id) }

  /// The shell reported a deadlock: from now on pending failure bounds fire when nothing else
  /// can run, so that waits that ignore cancellation end with their timeout error.
  mutating func markDeadlockReported() { timers.markDeadlockReported() }
}
