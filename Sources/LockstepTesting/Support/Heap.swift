/// A binary min-heap: `insert` and `popMin` in O(log n), `min` in O(1).
///
/// Equal elements come out in no particular order; make the ordering total (for example by adding
/// a sequence number) when ties must be broken deterministically.
struct Heap<Element: Comparable> {
  private var storage: [Element] = []

  init() {}

  /// Builds a heap from arbitrary elements in O(n).
  init(_ elements: some Sequence<Element>) {
    storage = Array(elements)
    guard storage.count > 1 else { return }
    for index in stride(from: storage.count / 2 - 1, through: 0, by: -1) {
      siftDown(from: index)
    }
  }

  var count: Int { storage.count }
  var isEmpty: Bool { storage.isEmpty }

  /// The smallest element, or `nil` when the heap is empty.
  var min: Element? { storage.first }

  /// The elements in no particular order.
  var unordered: [Element] { storage }

  mutating func insert(_ element: Element) {
    storage.append(element)
    siftUp(from: storage.count - 1)
  }

  /// Removes and returns the smallest element, or `nil` when the heap is empty.
  @discardableResult
  mutating func popMin() -> Element? {
    guard !storage.isEmpty else { return nil }
    if storage.count == 1 { return storage.removeLast() }
    let smallest = storage[0]
    let last = storage.removeLast()
    // Floyd's bottom-up pop: move the hole at the root down along the smaller children to a leaf
    // (one comparison a level), then sift the last element up from there — it came from the
    // bottom, so it rarely climbs far. About half the comparisons of sifting it down from the top.
    let count = storage.count
    var hole = 0
    while true {
      let left = 2 * hole + 1
      guard left < count else { break }
      let right = left + 1
      let smaller = right < count && storage[right] < storage[left] ? right : left
      storage[hole] = storage[smaller]
      hole = smaller
    }
    storage[hole] = last
    siftUp(from: hole)
    return smallest
  }

  private mutating func siftUp(from start: Int) {
    var child = start
    let element = storage[child]
    while child > 0 {
      let parent = (child - 1) / 2
      guard element < storage[parent] else { break }
      storage[child] = storage[parent]
      child = parent
    }
    storage[child] = element
  }

  private mutating func siftDown(from start: Int) {
    let count = storage.count
    var parent = start
    let element = storage[parent]
    while true {
      let left = 2 * parent + 1
      guard left < count else { break }
      let right = left + 1
      let smaller = right < count && storage[right] < storage[left] ? right : left
      guard storage[smaller] < element else { break }
      storage[parent] = storage[smaller]
      parent = smaller
    }
    storage[parent] = element
  }
}
