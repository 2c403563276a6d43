/// How often and how patiently ``retrying(_:clock:isolation:_:)`` retries: the first retry waits
/// `initialDelay`, each further one `multiplier` times longer than the one before.
public struct Backoff: Sendable {
  /// The most attempts, the first one included.
  public var attempts: Int
  /// The wait before the second attempt.
  public var initialDelay: Duration
  /// How much longer each wait is than the one before.
  public var multiplier: Int

  /// Creates a policy.
  public init(attempts: Int, initialDelay: Duration, multiplier: Int = 2) {
    self.attempts = attempts
    self.initialDelay = initialDelay
    self.multiplier = multiplier
  }

  /// The wait before attempt `attempt` (2, 3, …).
  public func delay(beforeAttempt attempt: Int) -> Duration {
    var delay = initialDelay
    for _ in 0..<max(0, attempt - 2) { delay *= multiplier }
    return delay
  }
}

/// Runs `operation` until it succeeds, at most `backoff.attempts` times, sleeping on `clock`
/// between attempts; rethrows the last error.
///
/// ```swift
/// let profile = try await retrying(Backoff(attempts: 3, initialDelay: .milliseconds(100)),
///                                  clock: ContinuousClock()) {
///   try await api.profile()
/// }
/// ```
///
/// A test passes a `TestClock` to check *when* each attempt happens, or an `ImmediateClock` to
/// skip the waits. Cancellation during a wait ends the retries with `CancellationError`.
public func retrying<Value>(
  _ backoff: Backoff, clock: any Clock<Duration>,
  isolation: isolated (any Actor)? = #isolation,
  _ operation: () async throws -> Value
) async throws -> Value {
  var attempt = 1
  while true {
    do {
      return try await operation()
    } catch {
      guard attempt < backoff.attempts else { throw error }
      attempt += 1
      try await clock.sleep(for: backoff.delay(beforeAttempt: attempt))
    }
  }
}
