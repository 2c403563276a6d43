/// Tests waiting for a primitive's state to reach a target — "three arrivals at the gate", "two
/// calls made", "a request for this key" — kept inside the primitive's pure state machine.
///
/// The state machine says when a target is reached; this struct only stores the watchers and
/// hands back, in arrival order, the ones whose target is reached.
struct Watchers<Target, Waiter> {
  private var entries: [WaiterID: (target: Target, waiter: Waiter)] = [:]

  /// Stores a watcher unless its target is already reached; returns whether it was stored (and
  /// so must suspend).
  mutating func watch(
    _ id: WaiterID, target: Target, _ waiter: Waiter, isReached: (Target) -> Bool
  ) -> Bool {
    guard !isReached(target) else { return false }
    entries[id] = (target, waiter)
    return true
  }

  /// Whether nobody is watching.
  var isEmpty: Bool { entries.isEmpty }

  /// Removes a watcher that timed out or was cancelled, if it is still waiting.
  mutating func remove(_ id: WaiterID) -> Waiter? {
    entries.removeValue(forKey: id)?.waiter
  }

  /// Removes and returns the watchers whose target is now reached, in the order they arrived.
  mutating func takeReached(_ isReached: (Target) -> Bool) -> [Waiter] {
    guard !entries.isEmpty else { return [] }
    // One pass, and an array only when somebody is reached: most calls reach nobody.
    var due: [(id: WaiterID, waiter: Waiter)] = []
    for (id, entry) in entries where isReached(entry.target) { due.append((id, entry.waiter)) }
    guard !due.isEmpty else { return [] }
    due.sort { $0.id < $1.id }
    for watcher in due { entries[watcher.id] = nil }
    return due.map(\.waiter)
  }

}
