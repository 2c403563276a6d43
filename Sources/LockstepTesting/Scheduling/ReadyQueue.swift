/// The jobs that are ready to run, in the order the scheduler picks them.
///
/// - FIFO (no seed): the job enqueued first runs first.
/// - Seeded: the next job is chosen uniformly at random among the ready ones, by a generator
///   seeded once per run, so the same seed and the same enqueue sequence give the same picks.
///   A pick is O(1): the chosen slot is swapped with the last one and removed.
struct ReadyQueue<Element> {
  private var storage: [Element?] = []
  /// FIFO only: the index of the oldest element.
  private var head = 0
  private var generator: SplitMix64?

  init(seed: UInt64?) {
    generator = seed.map { SplitMix64(seed: $0) }
  }

  var count: Int { storage.count - head }
  var isEmpty: Bool { count == 0 }

  mutating func append(_ element: Element) {
    storage.append(element)
  }

  /// Removes and returns the next job to run, or `nil` when none is ready.
  mutating func next() -> Element? {
    guard count > 0 else { return nil }
    if generator == nil {
      let element = storage[head].take()
      head += 1
      if head == storage.count {
        storage.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 1024 && head * 2 >= storage.count {
        storage.removeFirst(head)
        head = 0
      }
      return element
    }
    let index = generator!.index(below: storage.count)
    storage.swapAt(index, storage.count - 1)
    return storage.removeLast()
  }

  /// Removes every element, oldest first (FIFO) or in storage order (seeded).
  mutating func removeAll() -> [Element] {
    defer {
      storage.removeAll()
      head = 0
    }
    return storage[head...].compactMap { $0 }
  }
}
