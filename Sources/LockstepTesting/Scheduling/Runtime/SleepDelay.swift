#if compiler(>=6.3)
  @_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

  /// The reference instants of the real clocks, read once: sleeps' real deadlines are kept as
  /// offsets from them.
  enum RealClocks {
    static let continuousOrigin = ContinuousClock.now
    static let suspendingOrigin = SuspendingClock.now
  }

  /// The time now on `C` when it is one of the real clocks. Called first thing when a sleep
  /// arrives: every instruction before it makes the sleep look shorter than it is. A metatype
  /// comparison, not a dynamic cast, so that it costs the same the first time as every time.
  @available(LockstepCustomExecutors, *)
  func realNow<C: Clock>(for clock: C.Type) -> (RealDeadline.Clock, Duration)? {
    if C.self == ContinuousClock.self {
      return (.continuous, RealClocks.continuousOrigin.duration(to: .now))
    }
    if C.self == SuspendingClock.self {
      return (.suspending, RealClocks.suspendingOrigin.duration(to: .now))
    }
    return nil
  }

  /// The sleep until `instant` on `clock`, the real time `now` having been read when it arrived.
  @available(LockstepCustomExecutors, *)
  func sleepRequest<C: Clock>(
    until instant: C.Instant, clock: C, now: (RealDeadline.Clock, Duration)?
  ) -> SleepRequest {
    if let (kind, now) = now {
      if let instant = instant as? ContinuousClock.Instant {
        return SleepRequest(
          until: RealClocks.continuousOrigin.duration(to: instant), on: kind, now: now)
      }
      if let instant = instant as? SuspendingClock.Instant {
        return SleepRequest(
          until: RealClocks.suspendingOrigin.duration(to: instant), on: kind, now: now)
      }
    }
    return SleepRequest(delay: clock.now.duration(to: instant) as? Duration ?? .zero)
  }
#endif
