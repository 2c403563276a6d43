import Foundation
import LockstepTesting

// Linearizability judge benchmark: checking the history of one execution of 3 tasks × 3 calls
// on a counter, per check, against applying the same 9 calls one at a time to the model, in the
// same run. Two kinds of histories: linearizable ones (each call's interval stretched around its
// point in a random sequential run: the search finds a witness), and the same with one result
// corrupted so that none is (the search tries every configuration). Issue 32 wants a check to
// cost less than the execution; the execution is not measured here, so the figure stands alone.

/// A counter's operations: `increment` returns nothing (`nil`), the others the count.
private enum CounterOperation: Sendable {
  case increment
  case incrementAndGet
  case get
}

private let counter = SequentialSpecification<Int, CounterOperation, Int?>(initial: 0) { count, operation in
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

/// A linear congruential generator: the same histories on every run.
private struct Generator: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
  }

  mutating func next(below bound: Int) -> Int { Int((next() >> 33) % UInt64(bound)) }
}

/// A history of `tasks` tasks of `calls` calls each: a random sequential run of the counter, each
/// call's interval stretched around its point in the run as far as its task allows. With
/// `corrupted`, the last read returns a count no order reaches: one more than the increments.
private func stretchedHistory(tasks: Int, calls: Int, corrupted: Bool, using random: inout Generator)
  -> History<CounterOperation, Int?>
{
  var left = Array(repeating: calls, count: tasks)
  var run: [(task: Int, operation: CounterOperation)] = []
  while let task = left.indices.filter({ left[$0] > 0 }).randomElement(using: &random) {
    left[task] -= 1
    // Calls after the first are increments or reads; one read in each history at least.
    let operation: CounterOperation =
      run.isEmpty ? .get : [.increment, .incrementAndGet, .get][random.next(below: 3)]
    run.append((task, operation))
  }
  var state = counter.initial
  var outcomes = run.map { counter.apply(&state, $0.operation) }
  if corrupted, let last = run.lastIndex(where: { $0.operation == .get }) {
    outcomes[last] = state + 1
  }
  let points = run.indices.map { 10 * ($0 + 1) }
  var history = History<CounterOperation, Int?>()
  var earliest = Array(repeating: 0, count: tasks)
  for (index, call) in run.enumerated() {
    let invocation = earliest[call.task] + random.next(below: points[index] - earliest[call.task] + 1)
    let id = history.invoke(call.operation, task: call.task, at: invocation)
    let next = run.indices.first { $0 > index && run[$0].task == call.task }
    let latest = next.map { points[$0] - 1 } ?? 10 * (run.count + 1)
    let response = points[index] + random.next(below: latest - points[index] + 1)
    history.respond(to: id, with: outcomes[index], at: response)
    earliest[call.task] = response + 1
  }
  return history
}

func linearizabilityCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Linearizability: checking one 3 tasks × 3 calls history vs applying its calls") {
    var random = Generator(state: 32)
    let count = quick ? 200 : 1_000
    let judge = LinearizabilityJudge(counter)
    var results: [Measurement] = []
    for corrupted in [false, true] {
      let histories = (0..<count).map { _ in
        stretchedHistory(tasks: 3, calls: 3, corrupted: corrupted, using: &random)
      }
      // Each verdict checked once, outside the timing.
      let searches = histories.map(judge.search)
      let wrong = searches.count { $0.verdict.isLinearizable == corrupted }
      try require(
        wrong == 0,
        "\(wrong) checks of \(corrupted ? "non-" : "")linearizable histories said the opposite")
      let configurations = Double(searches.map(\.configurations).reduce(0, +)) / Double(count)
      let rounds = quick ? 5 : 20
      var sink = 0
      let (checking, applying) = await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
        for _ in 0..<rounds {
          for history in histories where judge.judge(history).isLinearizable { sink &+= 1 }
        }
      } _: {
        for _ in 0..<rounds {
          for history in histories {
            var state = counter.initial
            for call in history.calls { sink &+= counter.apply(&state, call.operation) ?? 0 }
          }
        }
      }
      try require(sink != -1, "unreachable: keeps the measured work")
      let checks = Double(rounds * count)
      let kind = corrupted ? "not linearizable (every configuration tried)" : "linearizable"
      results.append(
        .compared(
          "Linearizability", "3 × 3 calls, \(kind): one check", checking / checks * 1e6, "µs",
          against: "applying the 9 calls one at a time to the model", baseline: applying / checks * 1e6))
      results.append(
        .figure(
          "Linearizability", "3 × 3 calls, \(kind): configurations visited per check", configurations,
          "configurations"))
    }
    return results
  }
}
