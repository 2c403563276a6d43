/// Two accounts and transfers between them. `.broken` checks the balance, awaits the ledger,
/// then debits: two transfers at once can both pass the check and overdraw the account.
///
/// ```swift
/// let bank = BankAccounts(variant: .correct, opening: 100)
/// try await bank.transfer(80)   // from the first account to the second
/// ```
public actor BankAccounts {
  /// What a transfer throws when the first account cannot cover it.
  public struct InsufficientFunds: Error, Equatable, CustomStringConvertible {
    /// Creates the error.
    public init() {}
    /// `insufficient funds`.
    public var description: String { "insufficient funds" }
  }

  private let variant: Variant
  private let ledger = Ledger()
  private var first: Int
  private var second = 0

  /// A bank whose first account holds `opening` and second holds nothing.
  public init(variant: Variant, opening: Int) {
    self.variant = variant
    first = opening
  }

  /// Moves `amount` from the first account to the second; returns the first account's balance
  /// after it.
  public func transfer(_ amount: Int) async throws -> Int {
    guard first >= amount else { throw InsufficientFunds() }
    switch variant {
    case .correct:
      first -= amount
      second += amount
      let balance = first
      await ledger.record(amount)
      return balance
    case .broken:
      await ledger.record(amount)
      first -= amount
      second += amount
      return first
    }
  }

  /// The two balances: the first account's, then the second's.
  public var balances: [Int] { [first, second] }
}

/// Where a ``BankAccounts`` records its transfers: another actor, so recording suspends the bank.
actor Ledger {
  private(set) var amounts: [Int] = []
  func record(_ amount: Int) { amounts.append(amount) }
}
