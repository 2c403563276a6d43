/// The state behind ``EventRecorder``: the values, and who waits for how many (``EventCounts``).
///
/// Only the values are generic over the recorder's `Value`. Called from a test's module, code
/// generic over `Value` runs unspecialized, looking up the runtime type of every generic type it
/// touches; the recorder calls the waiting part with a concrete waiter type, so that it runs
/// specialized.
struct EventRecorderState<Value> {
  var values: [Value] = []
  var counts = EventCounts<Waiter<Void>>()
}

/// The pure state machine of an ``EventRecorder``'s waits: who waits for how many events.
struct EventCounts<Waiter> {
  private var watchers = Watchers<Int, Waiter>()

  /// The recorder now has `count` events; returns the watchers whose target is now reached.
  mutating func recorded(count: Int) -> [Waiter] {
    watchers.takeReached { count >= $0 }
  }

  /// A watcher arrives while the recorder has `count` events; false when the target is already
  /// reached.
  mutating func watch(_ id: WaiterID, target: Int, count: Int, _ waiter: Waiter) -> Bool {
    watchers.watch(id, target: target, waiter) { count >= $0 }
  }

  mutating func depart(_ id: WaiterID) -> Waiter? {
    watchers.remove(id)
  }
}
