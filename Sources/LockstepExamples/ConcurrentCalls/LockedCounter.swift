import Synchronization

/// A counter whose methods never suspend: a class whose count a `Mutex` guards.
///
/// ```swift
/// let counter = LockedCounter()
/// counter.increment()   // 1
/// ```
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public final class LockedCounter: Sendable {
  private let count = Mutex(0)

  /// A counter at 0.
  public init() {}

  /// Adds one and returns the count after it.
  @discardableResult
  public func increment() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }

  /// Adds `amount` unless the count would pass `limit`; returns whether it did.
  public func add(_ amount: Int, upTo limit: Int) -> Bool {
    count.withLock { count in
      guard count + amount <= limit else { return false }
      count += amount
      return true
    }
  }

  /// The count.
  public var value: Int { count.withLock { $0 } }
}
