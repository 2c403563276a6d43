/// The error an input diagram's `#` throws: `MarbleFailure(input: 1, tick: 2)` for `a-#`.
public struct MarbleFailure: Error, Equatable, Sendable, CustomStringConvertible {
  /// Which input diagram failed, 1 for the first.
  public let input: Int
  /// The tick of the `#`, 0 for the first character.
  public let tick: Int

  /// Creates the failure of input `input` at `tick`.
  public init(input: Int, tick: Int) {
    self.input = input
    self.tick = tick
  }

  /// `the failure (#) of input 1 at tick 2`.
  public var description: String { "the failure (#) of input \(input) at tick \(tick)" }
}

/// An input of a marble test: an `AsyncSequence` that produces the events of its diagram at their
/// ticks of a ``TestClock`` — a value, the end (`|`), a ``MarbleFailure`` (`#`).
///
/// ``expectMarbles(from:to:tick:fileID:filePath:line:column:_:)-(String,_,_,_,_,_,_,_)`` makes the inputs and hands them
/// to the code under test.
///
/// Tick *n* is *n* × the tick duration after the clock's zero. The sequence sleeps on the clock
/// until each event's tick, so under a deterministic run its events happen exactly then. An
/// iterator that asks late gets the events it missed at once, in order. After a diagram that ends
/// without `|` or `#`, `next()` waits until its task is cancelled, then throws
/// `CancellationError`.
public struct MarbleInput<Element: Sendable>: AsyncSequence, Sendable, CustomStringConvertible {
  /// The input's errors: ``MarbleFailure`` for `#`, `CancellationError`.
  public typealias Failure = any Error

  enum Event: Sendable {
    case value(Element)
    case finish
    case failure
  }

  /// The diagram as written.
  public let diagram: String
  /// Which input this is, 1 for the first.
  public let number: Int
  let events: [(tick: Int, event: Event)]
  let clock: TestClock
  let tick: Duration

  /// `input 1: a-b---c|`.
  public var description: String { "input \(number): \(diagram)" }

  /// Starts producing the diagram's events.
  public func makeAsyncIterator() -> Iterator {
    Iterator(input: self)
  }

  /// Produces the events of a ``MarbleInput``, each at its tick.
  public struct Iterator: AsyncIteratorProtocol {
    private let input: MarbleInput
    private var position = 0
    private var done = false

    init(input: MarbleInput) {
      self.input = input
    }

    /// The next value at its tick; nil after `|`; throws ``MarbleFailure`` at `#`.
    public mutating func next() async throws -> Element? {
      guard !done else { return nil }
      guard position < input.events.count else {
        try await waitUntilCancelled(
          "input \(input.number) of the marble test to go on after its diagram ends")
        return nil
      }
      let (tick, event) = input.events[position]
      position += 1
      try await input.clock.sleep(until: .zero.advanced(by: input.tick * tick))
      switch event {
      case .value(let value):
        return value
      case .finish:
        done = true
        return nil
      case .failure:
        done = true
        throw MarbleFailure(input: input.number, tick: tick)
      }
    }
  }
}

/// Suspends until the task is cancelled, then throws `CancellationError`.
private func waitUntilCancelled(_ what: String) async throws {
  enum Phase {
    case idle
    case waiting(CheckedContinuation<Void, Never>)
    case cancelled
  }
  let phase = Locked(Phase.idle)
  await withTaskCancellationHandler {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let stored = phase.withLock { phase in
        guard case .idle = phase else { return false }
        phase = .waiting(continuation)
        return true
      }
      if stored {
        _ = CurrentRun.noteWait(for: what)
      } else {
        continuation.resume()  // cancelled before it could wait
      }
    }
  } onCancel: {
    let waiting = phase.withLock { phase -> CheckedContinuation<Void, Never>? in
      defer { phase = .cancelled }
      if case .waiting(let continuation) = phase { return continuation }
      return nil
    }
    waiting?.resume()
  }
  throw CancellationError()
}
