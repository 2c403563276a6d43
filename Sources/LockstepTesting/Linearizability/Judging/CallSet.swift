/// A set of call indexes as a bitset: the first 64 inline, the rest in further words.
struct CallSet: Hashable {
  private var first: UInt64 = 0
  /// Words for the indexes from 64 on; empty (and unallocated) for histories of at most 64 calls.
  private var rest: [UInt64]

  /// An empty set of indexes below `capacity`.
  init(capacity: Int) {
    rest = capacity > 64 ? Array(repeating: 0, count: (capacity - 1) / 64) : []
  }

  func contains(_ index: Int) -> Bool {
    index < 64 ? first & (1 << UInt64(index)) != 0 : rest[index / 64 - 1] & (1 << UInt64(index % 64)) != 0
  }

  mutating func insert(_ index: Int) {
    if index < 64 { first |= 1 << UInt64(index) } else { rest[index / 64 - 1] |= 1 << UInt64(index % 64) }
  }

  mutating func remove(_ index: Int) {
    if index < 64 {
      first &= ~(1 << UInt64(index))
    } else {
      rest[index / 64 - 1] &= ~(1 << UInt64(index % 64))
    }
  }
}
