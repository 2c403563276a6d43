/// A first-in, first-out queue that keeps its size. `.broken` reads the size, awaits the change to
/// the elements, then writes the size it read plus or minus one: two changes at once lose one, and
/// `size()` no longer matches the elements.
///
/// ```swift
/// let queue = SizedQueue(variant: .correct)
/// await queue.push(1)
/// let size = await queue.size()   // 1
/// ```
public actor SizedQueue {
  private let variant: Variant
  private let storage = QueueStorage()
  private var count = 0

  /// An empty queue.
  public init(variant: Variant) { self.variant = variant }

  /// Adds `value` at the end.
  public func push(_ value: Int) async {
    switch variant {
    case .correct:
      count += 1
      await storage.append(value)
    case .broken:
      let counted = count
      await storage.append(value)
      count = counted + 1
    }
  }

  /// Removes and returns the first value; `nil` when the queue is empty.
  public func pop() async -> Int? {
    switch variant {
    case .correct:
      guard count > 0 else { return nil }
      count -= 1
      return await storage.removeFirst()
    case .broken:
      let counted = count
      let value = await storage.removeFirst()
      if value != nil { count = counted - 1 }
      return value
    }
  }

  /// How many values the queue holds.
  public func size() -> Int { count }
}

/// Where a ``SizedQueue`` keeps its elements: another actor, so each change suspends the queue.
actor QueueStorage {
  private var values: [Int] = []
  func append(_ value: Int) { values.append(value) }
  func removeFirst() -> Int? { values.isEmpty ? nil : values.removeFirst() }
}
