/// Scenario 9, "time-based operators as diagrams": a debounce over any `AsyncSequence`. A value
/// is emitted once `interval` has passed without a newer one; when the base sequence ends, the
/// value still waiting is emitted at once, then the sequence ends too.
///
/// It runs the base sequence in a task of its own and a timer task per value; an actor decides
/// which timer may still emit. The `.broken` variant forgets to cancel the previous timer when a
/// new value arrives, and its timers do not check that they are still the newest: the first
/// timer to fire emits whatever value is waiting then — too early.
public struct AsyncDebounceSequence<Base: AsyncSequence & Sendable, C: Clock>: AsyncSequence, Sendable
where Base.Element: Sendable, C.Duration: Sendable {
  /// The base sequence's element.
  public typealias Element = Base.Element
  /// The base sequence's errors, or `CancellationError`.
  public typealias Failure = any Error

  // Internal, so that the memberwise initializer serves the operator's function below.
  let base: Base
  let interval: C.Duration
  let clock: C
  let variant: Variant

  /// Starts the debounce: the base sequence is iterated from now on.
  public func makeAsyncIterator() -> AsyncThrowingStream<Element, any Error>.Iterator {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
    let state = DebounceState(
      continuation: continuation, interval: interval, clock: clock, variant: variant)
    let base = self.base
    let upstream = Task {
      do {
        for try await value in base { await state.receive(value) }
        await state.finish(throwing: nil)
      } catch {
        await state.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in
      upstream.cancel()
      Task { await state.stop() }
    }
    return stream.makeAsyncIterator()
  }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
  /// Emits a value once `interval` has passed on `clock` without a newer one.
  ///
  /// ```swift
  /// let queries = keystrokes.debounced(for: .milliseconds(300), clock: ContinuousClock())
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The quiet period after a value before it is emitted.
  ///   - clock: `ContinuousClock()` in the app; a `TestClock` in tests.
  ///   - variant: `.broken` for the version with the bug described in ``AsyncDebounceSequence``.
  public func debounced<C: Clock>(
    for interval: C.Duration, clock: C, variant: Variant = .correct
  ) -> AsyncDebounceSequence<Self, C> {
    AsyncDebounceSequence(base: self, interval: interval, clock: clock, variant: variant)
  }
}

/// The debounce's decisions: the waiting value, the newest timer, the end.
private actor DebounceState<Element: Sendable, C: Clock> where C.Duration: Sendable {
  private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
  private let interval: C.Duration
  private let clock: C
  private let variant: Variant
  private var pending: Element?
  private var generation = 0
  private var timer: Task<Void, Never>?

  init(
    continuation: AsyncThrowingStream<Element, any Error>.Continuation, interval: C.Duration,
    clock: C, variant: Variant
  ) {
    self.continuation = continuation
    self.interval = interval
    self.clock = clock
    self.variant = variant
  }

  /// A value arrived: it waits for a quiet period, replacing the one waiting.
  func receive(_ value: Element) {
    pending = value
    generation += 1
    if variant == .correct { timer?.cancel() }
    let generation = self.generation
    let (clock, interval) = (self.clock, self.interval)
    timer = Task {
      do {
        try await clock.sleep(for: interval)
      } catch {
        return  // a newer value, or the end, cancelled this timer
      }
      self.fire(generation)  // the timer task runs on this actor
    }
  }

  /// A timer fired: emit the waiting value if this is still the newest timer.
  private func fire(_ generation: Int) {
    guard variant == .broken || generation == self.generation, let value = pending else { return }
    pending = nil
    continuation.yield(value)
  }

  /// The base ended: emit the waiting value at once, then end.
  func finish(throwing error: (any Error)?) {
    timer?.cancel()
    if let value = pending, error == nil { continuation.yield(value) }
    pending = nil
    continuation.finish(throwing: error)
  }

  /// The consumer went away.
  func stop() {
    timer?.cancel()
    pending = nil
  }
}
