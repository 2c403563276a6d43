/// A sleep of the running task as a run receives it: how long it lasts in virtual time and, for
/// a sleep on the real clocks, the real deadline it was computed for.
struct SleepRequest: Equatable {
  /// The virtual duration of the sleep.
  let delay: Duration
  /// For `ContinuousClock` and `SuspendingClock` sleeps: the real deadline and the real time when
  /// the run received it, on that clock. `nil` for other clocks.
  let real: RealDeadline?

  /// The granularity of virtual sleeps on the real clocks.
  static let grid = Duration.microseconds(100)

  /// The sleep until `deadline` on a real clock read `now` when it arrived.
  ///
  /// The runtime hands a sleep over as an absolute deadline that the standard library computed
  /// from the real clock a moment before (`ContinuousClock.now + duration`). Lockstep reads the
  /// clock first thing when the sleep arrives and rounds the difference *up* to the 100 µs grid,
  /// so a sleep whose duration is a whole multiple of 100 µs lasts exactly that long in virtual
  /// time, whatever the real clock did in the microseconds between (measured: a median of 1 µs,
  /// rarely tens, after the warm-up run every process does first; see `RunLifecycle`). Finer
  /// durations are rounded up to the grid.
  init(until deadline: Duration, on clock: RealDeadline.Clock, now: Duration) {
    delay = Self.roundedUp(deadline - now)
    real = RealDeadline(clock: clock, deadline: deadline, receivedAt: now)
  }

  /// A sleep of `delay` on a clock that is not a real one.
  init(delay: Duration) {
    self.delay = max(delay, .zero)
    real = nil
  }

  static func roundedUp(_ duration: Duration) -> Duration {
    guard duration > .zero else { return .zero }
    let (seconds, attoseconds) = duration.components
    let grid = grid.components.attoseconds
    let rounded = (attoseconds + grid - 1) / grid * grid
    return .seconds(seconds) + .nanoseconds(rounded / 1_000_000_000)
  }
}

/// The real-clock deadline of a sleep: what tells a deadline computed from `ContinuousClock.now`
/// (which cannot follow virtual time) from a plain `sleep(for:)`.
struct RealDeadline: Equatable {
  enum Clock: Equatable { case continuous, suspending }
  let clock: Clock
  /// The deadline, as an offset from the clock's reference instant.
  let deadline: Duration
  /// When the run received the sleep, on the same clock.
  let receivedAt: Duration

  /// Whether a task that slept until `previous` — a sleep that has already ended in virtual time —
  /// now sleeps until a deadline computed from that one rather than from the time now: the same
  /// instant again, or a whole number of milliseconds after it, while real time has not even
  /// reached `previous`. A sleep computed from the time now (`sleep(for:)`) differs from the
  /// previous deadline by the real time that passed in between, to the nanosecond, which is
  /// almost never a whole number of milliseconds.
  func repeatsRealDeadline(after previous: RealDeadline) -> Bool {
    guard clock == previous.clock, previous.deadline > receivedAt else { return false }
    let step = deadline - previous.deadline
    return step >= .zero && step.components.attoseconds % 1_000_000_000_000_000 == 0
  }
}
