import Foundation

/// Seats of a show, the count of free ones guarded by an `NSLock`. `.broken` checks the count in
/// one lock section and takes the seat in the next: two reservations at once can both see the
/// last seat free. `.correct` checks and takes it in one section.
///
/// ```swift
/// let seats = LockedSeats(variant: .correct, free: 1)
/// seats.reserve()   // true: the last seat
/// seats.reserve()   // false
/// ```
public final class LockedSeats: @unchecked Sendable {
  private let variant: Variant
  private let lock = NSLock()
  private var free: Int

  /// Seats of which `free` are free.
  public init(variant: Variant, free: Int) {
    self.variant = variant
    self.free = free
  }

  /// Takes a free seat; whether there was one.
  public func reserve() -> Bool {
    switch variant {
    case .correct:
      return lock.withLock {
        guard free > 0 else { return false }
        free -= 1
        return true
      }
    case .broken:
      let available = lock.withLock { free > 0 }
      guard available else { return false }
      lock.withLock { free -= 1 }
      return true
    }
  }

  /// How many seats are free.
  public var freeSeats: Int { lock.withLock { free } }
}
