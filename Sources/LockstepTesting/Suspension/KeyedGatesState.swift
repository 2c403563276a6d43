/// The pure state machine behind ``KeyedGates``: which keys are open, who waits at which key,
/// the log of requested keys, and who waits for requests. Generic over the waiter token so it
/// can be tested without threads.
struct KeyedGatesState<Key: Hashable, Waiter> {
  /// What a watcher waits for.
  enum Target: Equatable {
    /// At least this many requests in total.
    case count(Int)
    /// At least one request for this key.
    case key(Key)
  }

  /// Every key requested so far, in order, repeats included.
  private(set) var requestedKeys: [Key] = []
  private var requestCounts: [Key: Int] = [:]
  private(set) var openKeys: Set<Key> = []
  /// Suspended waiters per key.
  private var waiters: [Key: [WaiterID: Waiter]] = [:]
  private var watchers = Watchers<Target, Waiter>()

  var waiterCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

  func waiterCount(for key: Key) -> Int { waiters[key]?.count ?? 0 }

  func requestCount(for key: Key) -> Int { requestCounts[key] ?? 0 }

  func isOpen(_ key: Key) -> Bool { openKeys.contains(key) }

  /// A request for `key` arrives. Returns whether it must suspend, and the watchers it satisfied.
  mutating func arrive(_ id: WaiterID, key: Key, _ waiter: Waiter) -> (suspends: Bool, satisfied: [Waiter]) {
    requestedKeys.append(key)
    requestCounts[key, default: 0] += 1
    let suspends = !openKeys.contains(key)
    if suspends { waiters[key, default: [:]][id] = waiter }
    return (suspends, takeSatisfiedWatchers())
  }

  /// Opens `key`, now and for every later request. Returns its waiters, in arrival order; empty
  /// when nobody waited or it was already open.
  mutating func open(_ key: Key) -> [Waiter] {
    guard openKeys.insert(key).inserted else { return [] }
    guard let waiting = waiters.removeValue(forKey: key) else { return [] }
    return waiting.sorted { $0.key < $1.key }.map(\.value)
  }

  /// Removes a waiter that timed out or was cancelled, if still suspended.
  mutating func depart(_ id: WaiterID, key: Key) -> Waiter? {
    guard let waiter = waiters[key]?.removeValue(forKey: id) else { return nil }
    if waiters[key]?.isEmpty == true { waiters[key] = nil }
    return waiter
  }

  /// A test arrives to wait for `target`: false when it is already reached.
  mutating func watch(_ id: WaiterID, target: Target, _ waiter: Waiter) -> Bool {
    watchers.watch(id, target: target, waiter, isReached: isReached)
  }

  mutating func departWatcher(_ id: WaiterID) -> Waiter? {
    watchers.remove(id)
  }

  /// The keys with suspended waiters and how many wait at each, in first-request order.
  var waitingKeys: [(key: Key, count: Int)] {
    var seen: Set<Key> = []
    return requestedKeys.compactMap { key in
      guard seen.insert(key).inserted, let count = waiters[key]?.count else { return nil }
      return (key, count)
    }
  }

  private func isReached(_ target: Target) -> Bool {
    switch target {
    case .count(let count): requestedKeys.count >= count
    case .key(let key): requestCounts[key] != nil
    }
  }

  private mutating func takeSatisfiedWatchers() -> [Waiter] {
    let state = self
    return watchers.takeReached(state.isReached)
  }
}
