/// The pure state machine behind ``Barrier``: a cyclic barrier that releases a round of parties
/// when the last one arrives.
struct BarrierState<Waiter> {
  let parties: Int
  /// Completed rounds so far.
  private(set) var rounds = 0
  private var arrived: [WaiterID: Waiter] = [:]

  init(parties: Int) {
    self.parties = parties
  }

  var waitingCount: Int { arrived.count }

  /// A party arrives. When it completes the round, returns the suspended parties to release (in
  /// arrival order) and `suspends == false` for the arriving one.
  mutating func arrive(_ id: WaiterID, _ waiter: Waiter) -> (suspends: Bool, released: [Waiter]) {
    guard arrived.count + 1 >= parties else {
      arrived[id] = waiter
      return (true, [])
    }
    rounds += 1
    defer { arrived = [:] }
    return (false, arrived.sorted { $0.key < $1.key }.map(\.value))
  }

  /// Removes a party that timed out or was cancelled, so it no longer counts toward the round.
  mutating func depart(_ id: WaiterID) -> Waiter? {
    arrived.removeValue(forKey: id)
  }
}
