/// The pure state machine behind ``Gate``. Generic over the waiter token so it can be tested
/// without threads.
struct GateState<Waiter> {
  private(set) var isOpen = false
  /// Every call to `wait()` so far, whether it passed or suspended.
  private(set) var arrivals = 0
  /// Suspended passers, by arrival order.
  private var passers: [WaiterID: Waiter] = [:]
  /// Tests waiting until `arrivals` reaches a target.
  private var arrivalWatchers = Watchers<Int, Waiter>()

  var waiterCount: Int { passers.count }

  /// A passer arrives. Returns whether it must suspend, and the arrival watchers it satisfied.
  mutating func arrive(_ id: WaiterID, _ waiter: Waiter) -> (suspends: Bool, satisfied: [Waiter]) {
    arrivals += 1
    if !isOpen { passers[id] = waiter }
    return (!isOpen, takeSatisfiedWatchers())
  }

  /// Opens the gate. Returns the passers to resume, in arrival order; empty if it was open.
  mutating func open() -> [Waiter] {
    guard !isOpen else { return [] }
    isOpen = true
    defer { passers = [:] }
    return passers.sorted { $0.key < $1.key }.map(\.value)
  }

  /// Removes a passer that timed out or was cancelled, if still suspended.
  mutating func departPasser(_ id: WaiterID) -> Waiter? {
    passers.removeValue(forKey: id)
  }

  /// A test arrives to wait for `target` arrivals: false when already reached.
  mutating func watchArrivals(_ id: WaiterID, target: Int, _ waiter: Waiter) -> Bool {
    let arrivals = self.arrivals
    return arrivalWatchers.watch(id, target: target, waiter) { arrivals >= $0 }
  }

  mutating func departWatcher(_ id: WaiterID) -> Waiter? {
    arrivalWatchers.remove(id)
  }

  private mutating func takeSatisfiedWatchers() -> [Waiter] {
    let arrivals = self.arrivals
    return arrivalWatchers.takeReached { arrivals >= $0 }
  }
}
