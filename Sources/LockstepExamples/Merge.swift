/// Two sequences as one: every value of either, as it arrives; it ends when both have ended, or
/// as soon as one fails.
///
/// Each base sequence runs in a child task of its own. The `.broken` variant ends as soon as the
/// *first* of the two ends, losing the other's later values.
public struct AsyncMergeSequence<First: AsyncSequence & Sendable, Second: AsyncSequence & Sendable>:
  AsyncSequence, Sendable
where First.Element: Sendable, Second.Element == First.Element {
  /// The element of both sequences.
  public typealias Element = First.Element
  /// The errors of either sequence.
  public typealias Failure = any Error

  private let first: First
  private let second: Second
  private let variant: Variant

  init(first: First, second: Second, variant: Variant) {
    self.first = first
    self.second = second
    self.variant = variant
  }

  /// Starts iterating both sequences.
  public func makeAsyncIterator() -> AsyncThrowingStream<Element, any Error>.Iterator {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
    let (first, second, variant) = (self.first, self.second, self.variant)
    let driver = Task {
      do {
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { for try await value in first { continuation.yield(value) } }
          group.addTask { for try await value in second { continuation.yield(value) } }
          if variant == .broken {
            try await group.next()  // the first to end ends the merge
            group.cancelAll()
          } else {
            try await group.waitForAll()
          }
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in driver.cancel() }
    return stream.makeAsyncIterator()
  }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
  /// Every value of this sequence and of `other`, as they arrive.
  ///
  /// ```swift
  /// let events = taps.merged(with: keys)
  /// ```
  ///
  /// - Parameter variant: `.broken` for the version with the bug described in
  ///   ``AsyncMergeSequence``.
  public func merged<Other: AsyncSequence & Sendable>(
    with other: Other, variant: Variant = .correct
  ) -> AsyncMergeSequence<Self, Other> where Other.Element == Element {
    AsyncMergeSequence(first: self, second: other, variant: variant)
  }
}
