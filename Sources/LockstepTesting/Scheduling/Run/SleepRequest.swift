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

  /// The sleep until `deadline` on a real clock, read `now` when the sleep arrived; the job that
  /// sleeps started at `jobStart` on the same clock.
  ///
  /// The runtime hands a sleep over as an absolute deadline computed from the real clock a moment
  /// before (`ContinuousClock.now + duration`), so the sleep's duration lies between the two
  /// readings Lockstep has: `deadline - now`, short by the hand-over, and `deadline - jobStart`,
  /// long by whatever the job did before it slept; ``recover(short:long:)`` picks between them
  /// (how exact that is: <doc:WhichWorkRunsNext#What-time-it-is-inside-a-run>).
  init(until deadline: Duration, on clock: RealDeadline.Clock, now: Duration, jobStart: Duration) {
    delay = Self.recover(short: deadline - now, long: deadline - jobStart)
    real = RealDeadline(clock: clock, deadline: deadline, receivedAt: now)
  }

  /// How far from a round duration a reading may be and still be read as that duration.
  static let tolerance = Duration.microseconds(20)

  /// The sleep's duration from its two readings (see ``init(until:on:now:jobStart:)``): each reading
  /// is read as the roundest duration it is within ``tolerance`` of — a whole second, 100 ms,
  /// 10 ms or 1 ms, the short reading rounded up and the long one down — and of the two, the one
  /// the reading is closer to wins. When the thread was preempted, one reading is off by the
  /// whole preemption and matches a round duration only by chance; the other is off by a
  /// microsecond or two.
  ///
  /// Neither matching, a short reading within ``gridTolerance`` of the 100 µs grid is a prompt
  /// hand-over of a duration on the grid: it is rounded up to it. Otherwise the hand-over was
  /// preempted (or the duration is finer than the grid), and the sleep lies somewhere between the
  /// two readings: the roundest duration that is alone in that interval at its unit — a whole
  /// second, 100 ms, 10 ms, 1 ms — is taken; failing that, the short reading rounded up to the
  /// grid.
  static func recover(short: Duration, long: Duration) -> Duration {
    guard short > .zero else { return .zero }
    // In whole nanoseconds: `Duration.components` divides a 128-bit count of attoseconds, and the
    // rules below would otherwise ask for it a few dozen times per sleep.
    return .nanoseconds(recover(short: short.wholeNanoseconds, long: long.wholeNanoseconds))
  }

  /// ``recover(short:long:)`` in nanoseconds, `short` positive.
  private static func recover(short: Int64, long: Int64) -> Int64 {
    let fromShort = roundest(short, rounding: .up)
    let fromLong = long >= short ? roundest(long, rounding: .down) : nil
    switch (fromShort, fromLong) {
    case (let up?, let down?): return down.distance < up.distance ? down.value : up.value
    case (let up?, nil): return up.value
    case (nil, let down?): return down.value
    case (nil, nil):
      let onGrid = multiple(of: gridNanoseconds, atLeast: short)
      if onGrid - short <= gridToleranceNanoseconds || long < short { return onGrid }
      return onlyRoundDuration(from: short, to: long) ?? onGrid
    }
  }

  /// How far below the grid a prompt hand-over leaves the short reading.
  static let gridTolerance = Duration.microseconds(5)

  private static let gridNanoseconds = grid.wholeNanoseconds
  private static let toleranceNanoseconds = tolerance.wholeNanoseconds
  private static let gridToleranceNanoseconds = gridTolerance.wholeNanoseconds

  /// A whole second, 100 ms, 10 ms and 1 ms, in nanoseconds.
  private static let units: [Int64] = [1_000_000_000, 100_000_000, 10_000_000, 1_000_000]

  /// The multiple of the coarsest unit that is the only multiple of its unit from `low` to
  /// `high`; `nil` when a unit has two or more there before any has exactly one.
  private static func onlyRoundDuration(from low: Int64, to high: Int64) -> Int64? {
    for unit in units {
      let first = multiple(of: unit, atLeast: low)
      if first > high { continue }
      return first + unit > high ? first : nil
    }
    return nil
  }

  private enum Rounding { case up, down }

  /// The roundest duration `reading` is within ``tolerance`` of, rounding it up or down.
  private static func roundest(_ reading: Int64, rounding: Rounding)
    -> (value: Int64, distance: Int64)?
  {
    for unit in units {
      let value =
        rounding == .up ? multiple(of: unit, atLeast: reading) : multiple(of: unit, atMost: reading)
      let distance = rounding == .up ? value - reading : reading - value
      if value > 0 && distance <= toleranceNanoseconds { return (value, distance) }
    }
    return nil
  }

  /// The smallest multiple of `unit` that is at least `value` (both positive).
  private static func multiple(of unit: Int64, atLeast value: Int64) -> Int64 {
    let down = multiple(of: unit, atMost: value)
    return down == value ? down : down + unit
  }

  /// The largest multiple of `unit` that is at most `value` (both positive).
  private static func multiple(of unit: Int64, atMost value: Int64) -> Int64 {
    value / unit * unit
  }

  /// A sleep of `delay` on a clock that is not a real one.
  init(delay: Duration) {
    self.delay = max(delay, .zero)
    real = nil
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
