import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Random histories with a known answer, or checked against a brute-force oracle. Seeds are fixed.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct LinearizabilityPropertyTests {
  /// A random execution of `tasks` tasks of `calls` calls each: a sequential run of the model in a
  /// random interleaving, each call's interval stretched around its point in that run as far as
  /// its task allows. The last call of a task may be left pending, having taken effect or not.
  private func stretchedExecution<State, Operation, Outcome>(
    _ specification: SequentialSpecification<State, Operation, Outcome>, tasks: Int, calls: Int,
    operation: (inout SplitMix64) -> Operation, using random: inout SplitMix64
  ) -> (history: History<Operation, Outcome>, order: [Int]) {
    // Each task's calls in the sequential run, in a random interleaving of the tasks.
    var left = Array(repeating: calls, count: tasks)
    var run: [(task: Int, operation: Operation, pending: Bool)] = []
    while left.contains(where: { $0 > 0 }) {
      let candidates = left.indices.filter { left[$0] > 0 }
      let task = candidates[random.next(below: candidates.count)]
      left[task] -= 1
      let pending = left[task] == 0 && random.next(below: 4) == 0
      run.append((task, operation(&random), pending))
    }
    // A pending call that did not take effect has no point in the run: the model skips it.
    let tookEffect = run.map { !$0.pending || random.next(below: 2) == 0 }
    var state = specification.initial
    let outcomes = run.indices.map { index -> Outcome? in
      tookEffect[index] ? specification.apply(&state, run[index].operation) : nil
    }
    // Linearization points 10, 20, …; each interval reaches from after the task's previous
    // response to before its next call's point.
    let points = run.indices.map { 10 * ($0 + 1) }
    var history = History<Operation, Outcome>()
    var order: [Int] = []
    var earliest = Array(repeating: 0, count: tasks)
    for (index, call) in run.enumerated() {
      let invocation = earliest[call.task] + random.next(below: points[index] - earliest[call.task] + 1)
      let id = history.invoke(call.operation, task: call.task, at: invocation)
      if tookEffect[index] { order.append(id) }
      guard !call.pending, let outcome = outcomes[index] else { continue }
      let next = run.indices.first { $0 > index && run[$0].task == call.task }
      let latest = next.map { points[$0] - 1 } ?? 10 * (run.count + 1)
      let response = points[index] + random.next(below: latest - points[index] + 1)
      history.respond(to: id, with: outcome, at: response)
      earliest[call.task] = response + 1
    }
    return (history, order)
  }

  @Test func acceptsStretchedSequentialExecutionsOfAQueue() {
    var random = SplitMix64(seed: 0x51)
    for _ in 0..<300 {
      let tasks = 1 + random.next(below: 4)
      let (calls, order) = stretchedExecution(
        queue, tasks: tasks, calls: 1 + random.next(below: 4),
        operation: { random in
          random.next(below: 2) == 0 ? .enqueue(random.next(below: 3)) : .dequeue
        }, using: &random)
      // The run the history was made from explains it.
      #expect(problems(of: order, in: calls, queue, complete: true, precedes: calls.precedes).isEmpty)
      let verdict = LinearizabilityJudge(queue).judge(calls)
      guard case .linearizable(let witness) = verdict else {
        Issue.record("rejected \(calls.calls)")
        continue
      }
      #expect(problems(of: witness, in: calls, queue, complete: true, precedes: calls.precedes).isEmpty)
    }
  }

  @Test func acceptsStretchedSequentialExecutionsOfACounter() {
    var random = SplitMix64(seed: 0xC0)
    let operations: [CounterOperation] = [.increment, .incrementAndGet, .get]
    for _ in 0..<300 {
      let (calls, _) = stretchedExecution(
        counter, tasks: 1 + random.next(below: 4), calls: 1 + random.next(below: 4),
        operation: { operations[$0.next(below: 3)] }, using: &random)
      guard case .linearizable(let witness) = LinearizabilityJudge(counter).judge(calls) else {
        Issue.record("rejected \(calls.calls)")
        continue
      }
      #expect(problems(of: witness, in: calls, counter, complete: true, precedes: calls.precedes).isEmpty)
    }
  }

  @Test func rejectsACorruptedResultOfASequentialHistory() {
    // No call overlaps another, so the model allows one result per call: any other is wrong.
    var random = SplitMix64(seed: 0x5E)
    for _ in 0..<300 {
      var entries: [Entry<RegisterOperation, Int?>] = []
      var value = 0
      for index in 0..<(1 + random.next(below: 8)) {
        let interval = (3 * index)...(3 * index + 1)
        if random.next(below: 2) == 0 {
          value = random.next(below: 3)
          entries.append(Entry(random.next(below: 3), .write(value), interval, nil))
        } else {
          entries.append(Entry(random.next(below: 3), .read, interval, value))
        }
      }
      #expect(LinearizabilityJudge(register).judge(history(entries)).isLinearizable)
      // Change what one call returned: a read by one more, or a write returning something.
      let victim = random.next(below: entries.count)
      let original = entries[victim]
      let wrong: Int? = original.outcome!.map { $0 + 1 + random.next(below: 2) } ?? 0
      entries[victim] = Entry(
        original.task, original.operation, original.invocation...original.response!, wrong)
      let verdict = LinearizabilityJudge(register).judge(history(entries))
      #expect(verdict == .notLinearizable(closest: Array(0..<victim)))
    }
  }

  @Test func rejectsAnIncrementThatRepeatsAnotherOnesResult() {
    // Every increment-and-get returns a different count, however the calls overlap: one that
    // repeats another's result, or returns a count never reached, cannot be explained.
    var random = SplitMix64(seed: 0x1C)
    for _ in 0..<300 {
      var (calls, _) = stretchedExecution(
        counter, tasks: 2 + random.next(below: 3), calls: 1 + random.next(below: 3),
        operation: { _ in .incrementAndGet }, using: &random)
      let returned = calls.calls.filter { !$0.isPending }
      guard returned.count >= 2 else { continue }
      let victim = returned[random.next(below: returned.count)].id
      let others = returned.filter { $0.id != victim }.compactMap { $0.response?.outcome }
      let wrong =
        random.next(below: 2) == 0 ? others[random.next(below: others.count)] : calls.calls.count + 1
      var corrupted = History<CounterOperation, Int?>()
      for call in calls.calls { corrupted.invoke(call.operation, task: call.task, at: call.invocation) }
      for call in calls.calls {
        guard let response = call.response else { continue }
        corrupted.respond(
          to: call.id, with: call.id == victim ? wrong : response.outcome, at: response.position)
      }
      calls = corrupted
      let verdict = LinearizabilityJudge(counter).judge(calls)
      guard case .notLinearizable(let closest) = verdict else {
        Issue.record("accepted \(calls.calls)")
        continue
      }
      #expect(problems(of: closest, in: calls, counter, complete: false, precedes: calls.precedes).isEmpty)
    }
  }

  /// Random small histories of a register whose reads return random values: the judge agrees
  /// with trying every order, and its witness or closest order is a valid one.
  @Test(arguments: [ConsistencyCondition.linearizability, .quiescentConsistency])
  func agreesWithTryingEveryOrder(condition: ConsistencyCondition) async {
    await onAThreadOfItsOwn {
      var random = SplitMix64(seed: condition == .linearizability ? 0xB1 : 0xB2)
      var verdicts = (linearizable: 0, not: 0)
      for _ in 0..<1_500 {
        var calls = History<RegisterOperation, Int?>()
        var free = Array(repeating: 0, count: 3)
        var done: Set<Int> = []  // tasks whose last call is pending
        for _ in 0..<(1 + random.next(below: 6)) {
          let tasks = (0..<3).filter { !done.contains($0) }
          guard !tasks.isEmpty else { break }
          let task = tasks[random.next(below: tasks.count)]
          let invocation = free[task] + random.next(below: 4)
          let operation: RegisterOperation =
            random.next(below: 2) == 0 ? .write(1 + random.next(below: 2)) : .read
          let id = calls.invoke(operation, task: task, at: invocation)
          if random.next(below: 6) == 0 {
            done.insert(task)
          } else {
            let response = invocation + random.next(below: 5)
            calls.respond(to: id, with: operation == .read ? random.next(below: 3) : nil, at: response)
            free[task] = response + 1
          }
        }
        let recorded = calls
        let precedes: (Int, Int) -> Bool =
          condition == .linearizability
          ? { recorded.precedes($0, $1) } : { quiescentlyPrecedes(recorded, $0, $1) }
        let expected = bruteForceLinearizable(calls, register, precedes: precedes)
        let verdict = LinearizabilityJudge(register, condition: condition).judge(calls)
        #expect(verdict.isLinearizable == expected, "\(calls.calls)")
        switch verdict {
        case .linearizable(let witness):
          verdicts.linearizable += 1
          #expect(problems(of: witness, in: calls, register, complete: true, precedes: precedes).isEmpty)
        case .notLinearizable(let closest):
          verdicts.not += 1
          #expect(problems(of: closest, in: calls, register, complete: false, precedes: precedes).isEmpty)
        }
      }
      // Both answers came up often enough for the comparison to mean something.
      #expect(verdicts.linearizable > 200 && verdicts.not > 200)
    }
  }

  @Test func everyLinearizableHistoryIsQuiescentlyConsistent() {
    var random = SplitMix64(seed: 0x9C)
    for _ in 0..<300 {
      let (calls, _) = stretchedExecution(
        register, tasks: 1 + random.next(below: 4), calls: 1 + random.next(below: 3),
        operation: { $0.next(below: 2) == 0 ? .write($0.next(below: 3)) : .read }, using: &random)
      #expect(LinearizabilityJudge(register, condition: .quiescentConsistency).judge(calls).isLinearizable)
    }
  }
}
