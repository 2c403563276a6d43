/// Whether a history is linearizable: a sequential order that explains it, or the longest one the
/// search reached.
package enum LinearizabilityVerdict: Equatable, Sendable {
  /// The calls' ids in a sequential order that respects real time and gives every recorded
  /// result. Pending calls in the order took effect; those left out did not.
  case linearizable(witness: [Int])
  /// No such order exists. `closest` is the longest prefix of one the search reached: calls' ids
  /// in an order that respects real time and gives their results, after which no call could go.
  case notLinearizable(closest: [Int])

  /// Whether the history is linearizable.
  package var isLinearizable: Bool {
    if case .linearizable = self { return true }
    return false
  }
}
