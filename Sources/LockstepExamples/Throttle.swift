/// Scenario 9, "time-based operators as diagrams": a throttle over any `AsyncSequence`. It emits
/// a value, then drops every value that arrives within `interval` of it; the first value after
/// the interval is emitted and starts the next one.
///
/// The `.broken` variant measures the interval from the last value that *arrived* instead of the
/// last one emitted, so a steady stream of values keeps restarting it and nothing more is
/// emitted after the first value.
public struct AsyncThrottleSequence<Base: AsyncSequence, C: Clock>: AsyncSequence {
  /// The base sequence's element.
  public typealias Element = Base.Element
  /// The base sequence's errors.
  public typealias Failure = Base.Failure

  // Internal, so that the memberwise initializer serves the operator's function below.
  let base: Base
  let interval: C.Duration
  let clock: C
  let variant: Variant

  /// Starts the throttle.
  public func makeAsyncIterator() -> Iterator {
    Iterator(base: base.makeAsyncIterator(), interval: interval, clock: clock, variant: variant)
  }

  /// Emits the values a throttle lets through.
  public struct Iterator: AsyncIteratorProtocol {
    private var base: Base.AsyncIterator
    private let interval: C.Duration
    private let clock: C
    private let variant: Variant
    private var last: C.Instant?

    init(base: Base.AsyncIterator, interval: C.Duration, clock: C, variant: Variant) {
      self.base = base
      self.interval = interval
      self.clock = clock
      self.variant = variant
    }

    /// The next value the throttle lets through, or nil when the base ends.
    public mutating func next() async throws(Failure) -> Element? {
      while let value = try await base.next(isolation: nil) {
        let now = clock.now
        if let last, now < last.advanced(by: interval) {
          if variant == .broken { self.last = now }  // the interval restarts with every value
          continue
        }
        last = now
        return value
      }
      return nil
    }
  }
}

extension AsyncThrottleSequence: Sendable where Base: Sendable, C: Sendable, C.Duration: Sendable {}

extension AsyncSequence {
  /// Emits a value, then drops the values that arrive within `interval` of it on `clock`.
  ///
  /// ```swift
  /// let positions = drags.throttled(for: .milliseconds(100), clock: ContinuousClock())
  /// ```
  ///
  /// - Parameters:
  ///   - interval: How long after an emitted value the next ones are dropped.
  ///   - clock: `ContinuousClock()` in the app; a `TestClock` in tests.
  ///   - variant: `.broken` for the version with the bug described in ``AsyncThrottleSequence``.
  public func throttled<C: Clock>(
    for interval: C.Duration, clock: C, variant: Variant = .correct
  ) -> AsyncThrottleSequence<Self, C> {
    AsyncThrottleSequence(base: self, interval: interval, clock: clock, variant: variant)
  }
}
