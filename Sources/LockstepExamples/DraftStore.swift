/// Checks a draft before it is stored, e.g. against a server.
public protocol DraftValidator: Sendable {
  /// Throws if the draft may not be created.
  func validate(_ id: Int) async throws
}

/// Scenario 4, "create if needed, without duplicates": an actor that creates a draft for an id
/// unless one exists, awaiting a validator between the check and the write.
///
/// Actor reentrancy means two callers can both pass the existence check before either writes.
/// The correct store checks again after the suspension; the `.broken` variant does not, and ends
/// with duplicates.
public actor DraftStore {
  /// The ids of the stored drafts, in creation order.
  public private(set) var drafts: [Int] = []
  private let validator: any DraftValidator
  private let variant: Variant

  /// Creates an empty store.
  public init(validator: any DraftValidator, variant: Variant = .correct) {
    self.validator = validator
    self.variant = variant
  }

  /// Creates the draft for `id` unless it exists.
  public func createIfNeeded(id: Int) async throws {
    guard !drafts.contains(id) else { return }
    try await validator.validate(id)
    // The actor may have run another call while this one was suspended: check again.
    if variant == .correct, drafts.contains(id) { return }
    drafts.append(id)
  }
}
