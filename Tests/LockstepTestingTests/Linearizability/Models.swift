import Synchronization

@testable import LockstepTesting

/// A counter's operations: `increment` returns nothing (`nil`), the others the count.
enum CounterOperation: Hashable, Sendable {
  case increment
  case incrementAndGet
  case get
}

let counter = SequentialSpecification<Int, CounterOperation, Int?>(initial: 0) { count, operation in
  switch operation {
  case .increment:
    count += 1
    return nil
  case .incrementAndGet:
    count += 1
    return count
  case .get:
    return count
  }
}

/// A register's operations: `write` returns nothing (`nil`), `read` the value (0 at first).
enum RegisterOperation: Hashable, Sendable {
  case write(Int)
  case read
}

let register = SequentialSpecification<Int, RegisterOperation, Int?>(initial: 0) { value, operation in
  switch operation {
  case .write(let new):
    value = new
    return nil
  case .read:
    return value
  }
}

/// A FIFO queue's operations.
enum QueueOperation: Hashable, Sendable {
  case enqueue(Int)
  case dequeue
}

/// What a queue's call gives back.
enum QueueResult: Hashable, Sendable {
  case done
  case value(Int)
  case empty
}

let queue = SequentialSpecification<[Int], QueueOperation, QueueResult>(initial: []) { items, operation in
  switch operation {
  case .enqueue(let item):
    items.append(item)
    return .done
  case .dequeue:
    return items.isEmpty ? .empty : .value(items.removeFirst())
  }
}

/// One call of a hand-written history: `task` called `operation` at `invocation`, and returned
/// `outcome` at `response` (both `nil` for a pending call).
struct Entry<Operation, Outcome> {
  let task: Int
  let operation: Operation
  let invocation: Int
  let response: Int?
  let outcome: Outcome?

  init(_ task: Int, _ operation: Operation, _ interval: ClosedRange<Int>, _ outcome: Outcome) {
    self.task = task
    self.operation = operation
    self.invocation = interval.lowerBound
    self.response = interval.upperBound
    self.outcome = outcome
  }

  /// A pending call.
  init(_ task: Int, _ operation: Operation, from invocation: Int) {
    self.task = task
    self.operation = operation
    self.invocation = invocation
    self.response = nil
    self.outcome = nil
  }
}

/// A history of `entries`, the call ids being their indexes.
func history<Operation, Outcome>(_ entries: [Entry<Operation, Outcome>]) -> History<Operation, Outcome> {
  var history = History<Operation, Outcome>()
  for entry in entries { history.invoke(entry.operation, task: entry.task, at: entry.invocation) }
  for (id, entry) in entries.enumerated() {
    if let response = entry.response, let outcome = entry.outcome {
      history.respond(to: id, with: outcome, at: response)
    }
  }
  return history
}

/// What is wrong with `order` as a prefix of a sequential explanation of `history`, if anything:
/// a repeated call, a call placed before one that returned before it was invoked, or a result the
/// model does not give. With `complete`, also a returned call left out.
func problems<State, Operation, Outcome>(
  of order: [Int], in history: History<Operation, Outcome>,
  _ specification: SequentialSpecification<State, Operation, Outcome>,
  complete: Bool, precedes: (Int, Int) -> Bool
) -> [String] {
  var found: [String] = []
  if Set(order).count != order.count { found.append("a call appears twice in \(order)") }
  let placed = Set(order)
  for (position, id) in order.enumerated() {
    // Every call that must come before `id` is placed before it.
    for other in history.calls.indices where precedes(other, id) {
      if !order[..<position].contains(other) { found.append("\(other) must come before \(id)") }
    }
  }
  var state = specification.initial
  for id in order {
    let outcome = specification.apply(&state, history.calls[id].operation)
    if let response = history.calls[id].response, response.outcome != outcome {
      found.append("call \(id) returned \(response.outcome), the model \(outcome)")
    }
  }
  if complete {
    for call in history.calls where !call.isPending && !placed.contains(call.id) {
      found.append("returned call \(call.id) left out")
    }
  }
  return found
}

/// Whether some sequential order explains `history`, by trying every subset of its pending calls
/// in every order: the oracle for small histories.
func bruteForceLinearizable<State, Operation, Outcome>(
  _ history: History<Operation, Outcome>, _ specification: SequentialSpecification<State, Operation, Outcome>,
  precedes: (Int, Int) -> Bool
) -> Bool {
  let pending = history.calls.filter(\.isPending).map(\.id)
  let returned = history.calls.filter { !$0.isPending }.map(\.id)
  for mask in 0..<(1 << pending.count) {
    let included = returned + pending.indices.filter { mask & (1 << $0) != 0 }.map { pending[$0] }
    var found = false
    permutations(of: included) { order in
      if found { return }
      var state = specification.initial
      for (position, id) in order.enumerated() {
        if order[(position + 1)...].contains(where: { precedes($0, id) }) { return }
        let outcome = specification.apply(&state, history.calls[id].operation)
        if let response = history.calls[id].response, response.outcome != outcome { return }
      }
      found = true
    }
    if found { return true }
  }
  return false
}

private func permutations(of elements: [Int], _ visit: ([Int]) -> Void) {
  var elements = elements
  func permute(_ start: Int) {
    if start == elements.count {
      visit(elements)
      return
    }
    for index in start..<elements.count {
      elements.swapAt(start, index)
      permute(start + 1)
      elements.swapAt(start, index)
    }
  }
  permute(0)
}

/// Whether a moment with no call in flight separates `first`'s response from `second`'s
/// invocation (invocations come before responses at the same position): quiescent consistency's
/// order, computed directly rather than by ``History/quiescentlyOrdered()``.
func quiescentlyPrecedes<Operation, Outcome>(
  _ history: History<Operation, Outcome>, _ first: Int, _ second: Int
) -> Bool {
  guard let end = history.calls[first].response?.position else { return false }
  let start = history.calls[second].invocation
  guard end < start else { return false }
  // Just after the responses at `moment`: quiet when every call invoked by then has returned.
  return history.calls.compactMap(\.response?.position).contains { moment in
    moment >= end && moment < start
      && !history.calls.contains { call in
        call.invocation <= moment && (call.response.map { $0.position > moment } ?? true)
      }
  }
}

/// Gives a new number each time it is made, whatever is called: not deterministic alone.
final class Drifting: Sendable {
  static let made = Mutex(0)
  let number: Int
  init() {
    number = Self.made.withLock {
      $0 += 1
      return $0
    }
  }
  func read() -> Int { number }
}
