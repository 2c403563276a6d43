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
/// finishing in a uniformly random order cost O(n²).
/// Within a window a child finishes at most about ``windowSize`` places out of order.
///
/// Jobs of a serial executor (the main actor) keep their arrival order among themselves, as on
/// the real main queue: a seeded pick chooses between the window's jobs and the *oldest* serial
/// job, never a younger serial job before an older one.
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
  /// Seeded only: jobs of the serial executor, oldest first from `serialHead`.
  private var serial: [Element?] = []
  private var serialHead = 0

  /// A queue in FIFO order, or in `seed`'s; `capacity` jobs fit before it reallocates (a test's
  /// run rarely has more ready at once, and growing from empty reallocates at every doubling).
  init(seed: UInt64?, capacity: Int = 16) {
    generator = seed.map { SplitMix64(seed: $0) }
    if generator == nil { storage.reserveCapacity(capacity) } else { window.reserveCapacity(capacity) }
  }

  var count: Int { window.count + storage.count - head + serial.count - serialHead }
  var isEmpty: Bool { count == 0 }

  /// Adds a ready job; `serial` marks a job of the main actor.
  mutating func append(_ element: Element, serial isSerial: Bool = false) {
    if generator != nil && isSerial {
      serial.append(element)
    } else if generator != nil && window.count < Self.windowSize && storage.count == head {
      window.append(element)
    } else {
      storage.append(element)
    }
  }

  /// Removes and returns the next job to run, or `nil` when none is ready.
  mutating func next() -> Element? {
    guard generator != nil else { return nextInArrivalOrder() }
    let hasSerial = serialHead < serial.count
    guard !window.isEmpty || hasSerial else { return nil }
    let index = generator!.index(below: window.count + (hasSerial ? 1 : 0))
    if index == window.count { return nextSerial() }
    window.swapAt(index, window.count - 1)
    let element = window.removeLast()
    if let waiting = nextInArrivalOrder() { window.append(waiting) }
    return element
  }

  private mutating func nextSerial() -> Element? {
    let element = serial[serialHead].take()
    serialHead += 1
    if serialHead == serial.count {
      serial.removeAll(keepingCapacity: true)
      serialHead = 0
    }
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
      serial.removeAll()
      serialHead = 0
    }
    return window + storage[head...].compactMap { $0 } + serial[serialHead...].compactMap { $0 }
  }
}
