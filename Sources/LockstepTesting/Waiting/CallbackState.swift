/// The state behind ``withCallback(_:timeout:fileID:filePath:line:column:_:)``: the first value,
/// how many times the callback came, and the waiting test.
struct CallbackState<Value> {
  private(set) var value: Value?
  private(set) var calls = 0
  private var waiter: Waiter<Void>?

  /// The callback came: the first call keeps its value and hands back the waiter to resume.
  /// Returns the number of calls so far, so that the caller can report extra ones.
  mutating func call(with value: Value) -> (waiter: Waiter<Void>?, calls: Int) {
    calls += 1
    guard calls == 1 else { return (nil, calls) }
    self.value = value
    defer { waiter = nil }
    return (waiter, calls)
  }

  /// The test starts waiting: false when the callback already came.
  mutating func wait(_ waiter: Waiter<Void>) -> Bool {
    guard calls == 0 else { return false }
    self.waiter = waiter
    return true
  }

  /// The wait gave up (timeout or cancellation): takes the waiter, if it is still stored.
  mutating func depart() -> Waiter<Void>? {
    defer { waiter = nil }
    return waiter
  }
}
