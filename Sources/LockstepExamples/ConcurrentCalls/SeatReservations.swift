import Synchronization

/// Seats to reserve, a `Mutex` guarding how many are free. `.broken` checks that a seat is free
/// under the lock, lets the lock go, then takes the seat under the lock again: two reservations at
/// once can both take the last seat. Its methods never suspend, so only real threads race them.
///
/// ```swift
/// let seats = SeatReservations(variant: .correct, seats: 1)
/// seats.reserve()   // true
/// seats.reserve()   // false: none left
/// ```
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public final class SeatReservations: Sendable {
  private let variant: Variant
  private let freeSeats: Mutex<Int>

  /// `seats` free seats.
  public init(variant: Variant, seats: Int) {
    self.variant = variant
    freeSeats = Mutex(seats)
  }

  /// Takes a free seat; returns whether there was one.
  public func reserve() -> Bool {
    switch variant {
    case .correct:
      return freeSeats.withLock { free in
        guard free > 0 else { return false }
        free -= 1
        return true
      }
    case .broken:
      let free = freeSeats.withLock { $0 }
      guard free > 0 else { return false }
      freeSeats.withLock { $0 -= 1 }
      return true
    }
  }

  /// How many seats are free.
  public var free: Int { freeSeats.withLock { $0 } }
}
