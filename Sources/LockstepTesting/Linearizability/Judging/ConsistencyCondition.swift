/// Which order of calls a sequential explanation must respect.
public enum ConsistencyCondition: Equatable, Sendable {
  /// Real time: a call that returned before another was invoked comes first.
  case linearizability
  /// Quiescence only: calls separated by a moment when no call was in flight come in that order;
  /// calls between two such moments may come in any order. Weaker than linearizability.
  case quiescentConsistency
}

extension History {
  /// The same calls with positions that make each quiescent period an instant: the calls between
  /// two moments with no call in flight all overlap, and come after the calls before them.
  ///
  /// Linearizability of the result is quiescent consistency of `self`.
  func quiescentlyOrdered() -> History {
    // Invocations before responses at equal positions: an instant where one call returns as
    // another starts is not quiescent (equal positions overlap).
    let events = calls.flatMap { call in
      [(position: call.invocation, isResponse: false, id: call.id)]
        + (call.response.map { [(position: $0.position, isResponse: true, id: call.id)] } ?? [])
    }.sorted { ($0.position, $0.isResponse ? 1 : 0) < ($1.position, $1.isResponse ? 1 : 0) }
    var period = Array(repeating: 0, count: calls.count)
    var current = 0
    var inFlight = 0
    for event in events {
      if event.isResponse {
        inFlight -= 1
        if inFlight == 0 { current += 1 }
      } else {
        period[event.id] = current
        inFlight += 1
      }
    }
    var ordered = History()
    for call in calls {
      ordered.invoke(call.operation, task: call.task, at: 2 * period[call.id])
      if let response = call.response {
        ordered.respond(to: call.id, with: response.outcome, at: 2 * period[call.id] + 1)
      }
    }
    return ordered
  }
}
