/// Identifies one suspended waiter of a Lockstep primitive. Unique in the process, never reused,
/// so a late timeout or cancellation can never remove somebody else's waiter.
struct WaiterID: Hashable, Comparable, Sendable, CustomStringConvertible {
  let rawValue: UInt64

  private static let counter = Locked<UInt64>(0)

  static func next() -> WaiterID {
    WaiterID(
      rawValue: counter.withLock {
        $0 += 1
        return $0
      })
  }

  static func < (lhs: WaiterID, rhs: WaiterID) -> Bool { lhs.rawValue < rhs.rawValue }
  var description: String { "#\(rawValue)" }
}

/// The continuation a primitive stores for a waiter.
typealias Waiter<Value> = CheckedContinuation<Value, any Error>
