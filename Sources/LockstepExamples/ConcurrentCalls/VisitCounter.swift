/// A counter of visits. `.broken` reads the count, awaits saving the new one, then writes: two
/// increments at once can both return the same number, and one visit is lost.
///
/// ```swift
/// let counter = VisitCounter(variant: .correct)
/// let first = await counter.increment()   // 1
/// ```
public actor VisitCounter {
  private let variant: Variant
  private let store = VisitStore()
  private var count = 0

  /// A counter at 0.
  public init(variant: Variant) { self.variant = variant }

  /// Counts one visit and returns the count after it.
  public func increment() async -> Int {
    switch variant {
    case .correct:
      count += 1
      let saved = count
      await store.save(saved)
      return saved
    case .broken:
      let read = count
      await store.save(read + 1)
      count = read + 1
      return count
    }
  }

  /// The visits counted so far.
  public var value: Int { count }
}

/// Where a ``VisitCounter`` saves its count: another actor, so saving suspends the counter.
actor VisitStore {
  private(set) var saved = 0
  func save(_ value: Int) { saved = value }
}
