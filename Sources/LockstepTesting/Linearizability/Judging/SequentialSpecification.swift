/// What an object should do when called one call at a time: its initial state, and how each
/// operation changes the state and what it returns.
///
/// `apply` must be deterministic and depend only on the state and the operation: the judge
/// calls it many times, in many orders, and compares states to skip what it has already tried.
package struct SequentialSpecification<State: Hashable, Operation, Outcome: Equatable> {
  /// The state before the first call.
  package let initial: State
  /// Applies one operation to the state and returns what the call gives back.
  package let apply: @Sendable (inout State, Operation) -> Outcome

  /// The specification starting at `initial`, where each operation is applied by `apply`.
  package init(initial: State, apply: @escaping @Sendable (inout State, Operation) -> Outcome) {
    self.initial = initial
    self.apply = apply
  }
}

extension SequentialSpecification: Sendable where State: Sendable {}
