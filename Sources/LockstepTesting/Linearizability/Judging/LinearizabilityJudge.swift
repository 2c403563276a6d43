/// Decides whether a history is linearizable against a sequential specification.
///
/// Wing and Gong's search with Lowe's memoization, as in porcupine: a depth-first search that
/// linearizes next any call no unlinearized call returned before, applies it to the model and
/// keeps it when the result matches, and skips every (set of linearized calls, model state) pair
/// it has seen before. A pending call may be linearized anywhere after its invocation, with any
/// result, or left out.
package struct LinearizabilityJudge<State: Hashable, Operation, Outcome: Equatable> {
  /// The sequential model the history is compared with.
  package let specification: SequentialSpecification<State, Operation, Outcome>
  /// The order a sequential explanation must respect.
  package let condition: ConsistencyCondition

  /// A judge against `specification`, for `condition`.
  package init(
    _ specification: SequentialSpecification<State, Operation, Outcome>,
    condition: ConsistencyCondition = .linearizability
  ) {
    self.specification = specification
    self.condition = condition
  }

  /// The verdict on `history`: linearizable (or quiescently consistent, per ``condition``) or not.
  package func judge(_ history: History<Operation, Outcome>) -> LinearizabilityVerdict {
    search(history).verdict
  }

  /// The verdict on `history`, and how many configurations the search visited.
  package func search(_ history: History<Operation, Outcome>) -> LinearizabilitySearchResult {
    let checked = condition == .quiescentConsistency ? history.quiescentlyOrdered() : history
    var search = Search(checked, apply: specification.apply)
    let found = search.run(from: specification.initial)
    let order = (found ? search.order : search.closest).map { search.ids[$0] }
    return LinearizabilitySearchResult(
      verdict: found ? .linearizable(witness: order) : .notLinearizable(closest: order),
      configurations: search.visited.count)
  }
}

/// A verdict and the work that reached it.
package struct LinearizabilitySearchResult: Equatable, Sendable {
  /// Whether the history is linearizable, with a witness or the closest order tried.
  package let verdict: LinearizabilityVerdict
  /// The (linearized calls, model state) configurations visited: the memo's size.
  package let configurations: Int
}

/// One configuration of the search: the calls linearized so far and the model's state after them.
private struct Configuration<State: Hashable>: Hashable {
  let linearized: CallSet
  let state: State
}

/// The depth-first search over one history. Indexes are positions in invocation order; the hot
/// loops read only the integer arrays, never a generic call.
private struct Search<State: Hashable, Operation, Outcome: Equatable> {
  /// The history's call ids, in invocation order.
  let ids: [Int]
  let invocations: [Int]
  /// `Int.max` for a pending call.
  let responses: [Int]
  let operations: [Operation]
  /// `nil` for a pending call: any result goes.
  let outcomes: [Outcome?]
  let apply: (inout State, Operation) -> Outcome
  var visited: Set<Configuration<State>> = []
  var linearized: CallSet
  /// The calls linearized so far, in order: the witness once every returned call is in it.
  var order: [Int] = []
  /// The longest `order` reached.
  var closest: [Int] = []
  /// Returned calls not linearized yet; pending ones never need to be.
  var returnedLeft: Int

  init(_ history: History<Operation, Outcome>, apply: @escaping (inout State, Operation) -> Outcome) {
    // Stable: calls invoked at the same position keep their ids' order.
    let calls = history.calls.sorted { ($0.invocation, $0.id) < ($1.invocation, $1.id) }
    ids = calls.map(\.id)
    invocations = calls.map(\.invocation)
    responses = calls.map { $0.response?.position ?? .max }
    operations = calls.map(\.operation)
    outcomes = calls.map { $0.response?.outcome }
    self.apply = apply
    linearized = CallSet(capacity: calls.count)
    returnedLeft = calls.count { !$0.isPending }
  }

  mutating func run(from state: State) -> Bool {
    if returnedLeft == 0 { return true }
    guard visited.insert(Configuration(linearized: linearized, state: state)).inserted else {
      return false
    }
    // A call can go next unless an unlinearized call returned before it was invoked: its
    // invocation is at most the earliest response left.
    var earliestResponse = Int.max
    for index in responses.indices where !linearized.contains(index) {
      earliestResponse = min(earliestResponse, responses[index])
    }
    for index in invocations.indices {
      if invocations[index] > earliestResponse { break }
      if linearized.contains(index) { continue }
      var next = state
      let outcome = apply(&next, operations[index])
      if let expected = outcomes[index], expected != outcome { continue }
      let returned = responses[index] != .max
      linearized.insert(index)
      order.append(index)
      if returned { returnedLeft -= 1 }
      if order.count > closest.count { closest = order }
      if run(from: next) { return true }
      if returned { returnedLeft += 1 }
      order.removeLast()
      linearized.remove(index)
    }
    return false
  }
}
