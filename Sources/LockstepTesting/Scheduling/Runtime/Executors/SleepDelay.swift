#if compiler(>=6.3) && compiler(<6.4)
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
  func realNow<C: Clock>(for clock: C.Type) -> RealNow? {
    if C.self == ContinuousClock.self {
      let now = ContinuousClock.now
      return RealNow(clock: .continuous, now: RealClocks.continuousOrigin.duration(to: now), continuous: now)
    }
    if C.self == SuspendingClock.self {
      let now = SuspendingClock.now
      return RealNow(
        clock: .suspending, now: RealClocks.suspendingOrigin.duration(to: now), continuous: .now)
    }
    return nil
  }

  /// A reading of a real clock when a sleep arrived, with the continuous clock read with it.
  struct RealNow {
    let clock: RealDeadline.Clock
    /// Offset from the clock's reference instant.
    let now: Duration
    let continuous: ContinuousClock.Instant
  }

  /// The sleep until `instant` on `clock`, the real time `now` having been read when it arrived.
  /// `jobStart` is when the sleeping job started, on the continuous clock.
  @available(LockstepCustomExecutors, *)
  func sleepRequest<C: Clock>(
    until instant: C.Instant, clock: C, now reading: RealNow?, jobStart: ContinuousClock.Instant
  ) -> SleepRequest {
    if let reading {
      let (kind, now) = (reading.clock, reading.now)
      // The two real clocks advance together while the machine is awake.
      let jobStartOnThisClock = now - jobStart.duration(to: reading.continuous)
      if let instant = instant as? ContinuousClock.Instant {
        return SleepRequest(
          until: RealClocks.continuousOrigin.duration(to: instant), on: kind, now: now,
          jobStart: jobStartOnThisClock)
      }
      if let instant = instant as? SuspendingClock.Instant {
        return SleepRequest(
          until: RealClocks.suspendingOrigin.duration(to: instant), on: kind, now: now,
          jobStart: jobStartOnThisClock)
      }
    }
    return SleepRequest(until: instant, onVirtual: clock)
  }

  extension SleepRequest {
    /// The sleep until `instant` on `clock`, read while the clock reads virtual now (or is not a
    /// real clock): exactly the time from now to the deadline.
    init<C: Clock>(until instant: C.Instant, onVirtual clock: C) {
      self.init(delay: clock.now.duration(to: instant) as? Duration ?? .zero)
    }
  }
#endif
