/// The calls of one execution: who made each call, when it was invoked, and when and with what it
/// returned.
///
/// Positions are points in one total order of the run's events (a step counter, or a counter of
/// invocations and responses): call `a` precedes call `b` in real time when `a` responded at a
/// position before `b`'s invocation. Equal positions are the same instant: such calls overlap.
package struct History<Operation, Outcome> {
  /// One call: an operation invoked by a task, and its response unless it never returned.
  package struct Call {
    /// The call's index in ``History/calls``.
    package let id: Int
    /// The task (thread) that made the call.
    package let task: Int
    /// What was called: an operation of the sequential specification.
    package let operation: Operation
    /// Where the call was invoked.
    package let invocation: Int
    /// Where the call returned and what it gave back; `nil` for a pending call, one that never
    /// returned (it may or may not have taken effect).
    package internal(set) var response: Response?

    /// Whether the call returned.
    package var isPending: Bool { response == nil }
  }

  /// The end of a call: where it returned and what it gave back.
  package struct Response {
    /// Where the call returned: at or after its invocation.
    package let position: Int
    /// What the call returned or threw.
    package let outcome: Outcome
  }

  /// Every call, in the order they were recorded; a call's `id` is its index.
  package private(set) var calls: [Call] = []

  /// A history without calls.
  package init() {}

  /// Records that `task` invoked `operation` at `position`, and returns the call's id.
  @discardableResult
  package mutating func invoke(_ operation: Operation, task: Int, at position: Int) -> Int {
    let id = calls.count
    calls.append(Call(id: id, task: task, operation: operation, invocation: position, response: nil))
    return id
  }

  /// Records that call `id` returned `outcome` at `position`.
  package mutating func respond(to id: Int, with outcome: Outcome, at position: Int) {
    precondition(calls.indices.contains(id), "no call \(id) in the history")
    precondition(calls[id].response == nil, "call \(id) already returned")
    precondition(position >= calls[id].invocation, "call \(id) returned before it was invoked")
    calls[id].response = Response(position: position, outcome: outcome)
  }

  /// Whether call `first` returned before call `second` was invoked: then every linearization puts
  /// `first` before `second`.
  package func precedes(_ first: Int, _ second: Int) -> Bool {
    guard let response = calls[first].response else { return false }
    return response.position < calls[second].invocation
  }
}

extension History: Sendable where Operation: Sendable, Outcome: Sendable {}
extension History.Call: Sendable where Operation: Sendable, Outcome: Sendable {}
extension History.Response: Sendable where Outcome: Sendable {}
extension History: Equatable where Operation: Equatable, Outcome: Equatable {}
extension History.Call: Equatable where Operation: Equatable, Outcome: Equatable {}
extension History.Response: Equatable where Outcome: Equatable {}
