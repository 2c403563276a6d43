/// The jobs that are ready to run, in the order the scheduler picks them.
///
/// - FIFO (no seed): the job enqueued first runs first.
/// - Seeded: the next job is chosen uniformly at random among the ready ones, by a generator
///   seeded once per run, so the same seed and the same enqueue sequence give the same picks.
///   A pick is O(1): the chosen slot is swapped with the last one and removed.
///
/// Seeded picks are made within a window of at most ``windowSize`` jobs; the jobs beyond it wait
/// in FIFO order and enter the window one per pick. With at most ``windowSize`` jobs ready (any
/// realistic test) every ready job can be picked. The bound exists for the Swift 6.3 runtime: a
/// task group keeps its children in a singly linked list and unlinks a finished child with a
/// linear walk from the oldest (swiftlang/swift#71212, fixed by #87887 after 6.3), so children
/// finishing in a uniformly random order cost O(n²): 10,000 children took 20× the FIFO time.
/// Within a window a child finishes at most about ``windowSize`` places out of order.
struct ReadyQueue<Element> {
  /// The most jobs a seeded pick chooses among.
  static var windowSize: Int { 128 }

  /// FIFO: every ready job. Seeded: the jobs waiting to enter the window.
  private var storage: [Element?] = []
  /// The index of the oldest element of `storage`.
  private var head = 0
  /// Seeded only: the jobs a pick chooses among.
  private var window: [Element] = []
  private var generator: SplitMix64?

  init(seed: UInt64?) {
    generator = seed.map { SplitMix64(seed: $0) }
  }

  var count: Int { window.count + storage.count - head }
  var isEmpty: Bool { count == 0 }

  mutating func append(_ element: Element) {
    if generator != nil && window.count < Self.windowSize && storage.count == head {
      window.append(element)
    } else {
      storage.append(element)
    }
  }

  /// Removes and returns the next job to run, or `nil` when none is ready.
  mutating func next() -> Element? {
    guard generator != nil else { return nextInArrivalOrder() }
    guard !window.isEmpty else { return nil }
    let index = generator!.index(below: window.count)
    window.swapAt(index, window.count - 1)
    let element = window.removeLast()
    if let waiting = nextInArrivalOrder() { window.append(waiting) }
    return element
  }

  private mutating func nextInArrivalOrder() -> Element? {
    guard head < storage.count else { return nil }
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

  /// Removes every element: the window in storage order (seeded), then the others oldest first.
  mutating func removeAll() -> [Element] {
    defer {
      window.removeAll()
      storage.removeAll()
      head = 0
    }
    return window + storage[head...].compactMap { $0 }
  }
}
