/// Tests waiting for a primitive's state to reach a target — "three arrivals at the gate", "two
/// calls made", "a request for this key" — kept inside the primitive's pure state machine.
///
/// The state machine says when a target is reached; this struct only stores the watchers and
/// hands back, in arrival order, the ones whose target is reached.
struct Watchers<Target, Waiter> {
  /// How many are watching. Kept apart from `entries`, and first, so that asking needs no runtime
  /// type: in code generic over a recorder's value type (unspecialized when called from a test's
  /// module), touching the dictionary of tuples looks up the tuple's and the dictionary's types
  /// at run time, and most calls find nobody watching.
  private(set) var count = 0
  private var entries: [WaiterID: (target: Target, waiter: Waiter)] = [:]

  /// Stores a watcher unless its target is already reached; returns whether it was stored (and
  /// so must suspend).
  mutating func watch(
    _ id: WaiterID, target: Target, _ waiter: Waiter, isReached: (Target) -> Bool
  ) -> Bool {
    guard !isReached(target) else { return false }
    if entries.updateValue((target, waiter), forKey: id) == nil { count += 1 }
    return true
  }

  /// Whether nobody is watching.
  var isEmpty: Bool { count == 0 }

  /// Removes a watcher that timed out or was cancelled, if it is still waiting.
  mutating func remove(_ id: WaiterID) -> Waiter? {
    guard count > 0, let removed = entries.removeValue(forKey: id) else { return nil }
    count -= 1
    return removed.waiter
  }

  /// Removes and returns the watchers whose target is now reached, in the order they arrived.
  mutating func takeReached(_ isReached: (Target) -> Bool) -> [Waiter] {
    guard count > 0 else { return [] }
    // One pass, and an array only when somebody is reached: most calls reach nobody.
    var due: [(id: WaiterID, waiter: Waiter)] = []
    for (id, entry) in entries where isReached(entry.target) { due.append((id, entry.waiter)) }
    guard !due.isEmpty else { return [] }
    due.sort { $0.id < $1.id }
    for watcher in due { entries[watcher.id] = nil }
    count -= due.count
    return due.map(\.waiter)
  }

}
