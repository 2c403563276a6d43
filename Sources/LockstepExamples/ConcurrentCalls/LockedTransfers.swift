import Foundation

/// Two accounts, each balance guarded by its own `NSLock`; a transfer holds both locks.
/// `.broken` takes the source account's lock first: two transfers in opposite directions can each
/// hold one lock and wait for the other (the AB/BA deadlock). `.correct` takes the locks in one
/// order, the first account's first.
///
/// ```swift
/// let bank = LockedTransfers(variant: .correct, balances: [100, 100])
/// bank.transfer(30, from: 0, to: 1)
/// bank.balances   // [70, 130]
/// ```
public final class LockedTransfers: @unchecked Sendable {
  private let variant: Variant
  private let locks = [NSLock(), NSLock()]
  private var amounts: [Int]

  /// Two accounts holding `balances`.
  public init(variant: Variant, balances: [Int]) {
    self.variant = variant
    amounts = balances
  }

  /// Moves `amount` from account `source` to account `destination` (0 or 1).
  public func transfer(_ amount: Int, from source: Int, to destination: Int) {
    let (first, second) =
      variant == .broken || source < destination ? (source, destination) : (destination, source)
    locks[first].lock()
    locks[second].lock()
    amounts[source] -= amount
    amounts[destination] += amount
    locks[second].unlock()
    locks[first].unlock()
  }

  /// The two balances.
  public var balances: [Int] {
    locks[0].lock()
    locks[1].lock()
    defer {
      locks[1].unlock()
      locks[0].unlock()
    }
    return amounts
  }
}
