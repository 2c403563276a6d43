/// The run-local numbers of a run's tasks, by runtime task id: a map kept as two arrays sorted by
/// id, searched by bisection. The runtime hands out task ids in increasing order, and a run meets
/// its tasks as they are created, so a new id almost always goes at the end: no hashing, no
/// rehashing as the run grows, O(log n) to look up.
struct TaskNumbers {
  private var ids: [UInt64] = []
  private var numbers: [Int] = []

  /// Every runtime id in the map, in increasing order.
  var allIDs: [UInt64] { ids }

  /// Makes room for `count` tasks without reallocating.
  mutating func reserveCapacity(_ count: Int) {
    ids.reserveCapacity(count)
    numbers.reserveCapacity(count)
  }

  subscript(id: UInt64) -> Int? {
    let index = position(of: id)
    return index < ids.count && ids[index] == id ? numbers[index] : nil
  }

  /// Maps `id` to `number`; `id` must not be in the map yet.
  mutating func insert(_ id: UInt64, _ number: Int) {
    if ids.last.map({ $0 < id }) ?? true {
      ids.append(id)
      numbers.append(number)
      return
    }
    let index = position(of: id)
    ids.insert(id, at: index)
    numbers.insert(number, at: index)
  }

  /// The index of the first id not less than `id`.
  private func position(of id: UInt64) -> Int {
    if let last = ids.last, last < id { return ids.count }
    var low = 0
    var high = ids.count
    while low < high {
      let middle = (low + high) / 2
      if ids[middle] < id { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
