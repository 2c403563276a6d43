#if compiler(>=6.3)
  @_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

  /// The delay from now until `instant` on `clock`, rounded up to a 100 µs grid: the runtime hands
  /// over a deadline computed from the real clock a few microseconds earlier (3 µs measured in
  /// debug builds), and rounding makes `sleep(for: .milliseconds(80))` exactly 80 ms of virtual
  /// time, so that the order of sleepers does not depend on real-time jitter.
  @available(LockstepCustomExecutors, *)
  func sleepDelay<C: Clock>(until instant: C.Instant, clock: C) -> Duration {
    let raw: Duration
    if let instant = instant as? ContinuousClock.Instant {
      raw = ContinuousClock.now.duration(to: instant)
    } else if let instant = instant as? SuspendingClock.Instant {
      raw = SuspendingClock.now.duration(to: instant)
    } else if let duration = clock.now.duration(to: instant) as? Duration {
      raw = duration
    } else {
      raw = .zero
    }
    return roundedUpToGrid(raw)
  }

  private func roundedUpToGrid(_ duration: Duration) -> Duration {
    guard duration > .zero else { return .zero }
    let (seconds, attoseconds) = duration.components
    let grid: Int64 = 100_000_000_000_000  // 100 µs in attoseconds
    let roundedAtto = (attoseconds + grid - 1) / grid * grid
    return .seconds(seconds) + .nanoseconds(roundedAtto / 1_000_000_000)
  }
#endif
