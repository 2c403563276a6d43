import LockstepTestSupport
import Testing

@testable import LockstepTesting

private typealias Counter = Entry<CounterOperation, Int?>
private typealias Register = Entry<RegisterOperation, Int?>
private typealias Queue = Entry<QueueOperation, QueueResult>

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct LinearizabilityJudgeTests {
  @Test func acceptsASequentialHistoryWithItsOwnOrderAsWitness() {
    let calls = history([
      Counter(0, .increment, 0...1, nil),
      Counter(1, .incrementAndGet, 2...3, 2),
      Counter(0, .get, 4...5, 2),
      Counter(1, .increment, 6...7, nil),
      Counter(2, .get, 8...9, 3),
    ])
    #expect(LinearizabilityJudge(counter).judge(calls) == .linearizable(witness: [0, 1, 2, 3, 4]))
  }

  @Test func acceptsAnEmptyHistory() {
    #expect(LinearizabilityJudge(counter).judge(History()) == .linearizable(witness: []))
  }

  @Test func findsTheOnlyOrderOfOverlappingCallsThatExplainsThem() {
    // The enqueues overlap; the dequeues after both show that 2 went in first.
    let calls = history([
      Queue(0, .enqueue(1), 0...3, .done),
      Queue(1, .enqueue(2), 1...2, .done),
      Queue(0, .dequeue, 4...5, .value(2)),
      Queue(1, .dequeue, 6...7, .value(1)),
    ])
    #expect(LinearizabilityJudge(queue).judge(calls) == .linearizable(witness: [1, 0, 2, 3]))
  }

  @Test func linearizesAReadOverlappingAWriteEitherSide() {
    for (read, witness) in [(0, [1, 0]), (1, [0, 1])] {
      let calls = history([Register(0, .write(1), 0...3, nil), Register(1, .read, 1...2, read)])
      #expect(LinearizabilityJudge(register).judge(calls) == .linearizable(witness: witness))
    }
  }

  @Test func rejectsALostUpdateSeenByALaterRead() {
    // Two overlapping increments, then a read after both that sees one of them.
    let calls = history([
      Counter(0, .increment, 0...3, nil),
      Counter(1, .increment, 1...2, nil),
      Counter(0, .get, 4...5, 1),
    ])
    #expect(LinearizabilityJudge(counter).judge(calls) == .notLinearizable(closest: [0, 1]))
  }

  @Test func rejectsTwoIncrementsThatBothReturnOne() {
    let calls = history([Counter(0, .incrementAndGet, 0...3, 1), Counter(1, .incrementAndGet, 1...2, 1)])
    #expect(LinearizabilityJudge(counter).judge(calls) == .notLinearizable(closest: [0]))
  }

  @Test func rejectsAStaleReadAfterACompletedWrite() {
    let calls = history([
      Register(0, .write(1), 0...1, nil),
      Register(1, .read, 2...3, 0),
    ])
    #expect(LinearizabilityJudge(register).judge(calls) == .notLinearizable(closest: [0]))
  }

  @Test func rejectsAnOrderThatOnlyExistsAgainstRealTime() {
    // Swapping the enqueues would explain the dequeue, but enqueue(1) returned before enqueue(2)
    // was invoked.
    let calls = history([
      Queue(0, .enqueue(1), 0...1, .done),
      Queue(1, .enqueue(2), 2...3, .done),
      Queue(0, .dequeue, 4...5, .value(2)),
    ])
    #expect(LinearizabilityJudge(queue).judge(calls) == .notLinearizable(closest: [0, 1]))
    // The same calls, the enqueues overlapping: now the swap is allowed.
    let overlapping = history([
      Queue(0, .enqueue(1), 0...2, .done),
      Queue(1, .enqueue(2), 1...3, .done),
      Queue(0, .dequeue, 4...5, .value(2)),
    ])
    #expect(LinearizabilityJudge(queue).judge(overlapping) == .linearizable(witness: [1, 0, 2]))
  }

  @Test func treatsCallsAtTheSamePositionAsOverlapping() {
    // The write returns at 2, where the read is invoked: the same instant, so either order.
    let calls = history([Register(0, .write(1), 0...2, nil), Register(1, .read, 2...3, 0)])
    #expect(LinearizabilityJudge(register).judge(calls) == .linearizable(witness: [1, 0]))
  }

  @Test func letsAPendingCallTakeEffect() {
    // The write never returned, but the read after its invocation saw it.
    let calls = history([
      Register(0, .write(1), from: 0),
      Register(1, .read, 1...2, 1),
    ])
    #expect(LinearizabilityJudge(register).judge(calls) == .linearizable(witness: [0, 1]))
  }

  @Test func letsAPendingCallNotTakeEffect() {
    // The write never returned, and the read long after it did not see it.
    let calls = history([
      Register(0, .write(1), from: 0),
      Register(1, .read, 5...6, 0),
    ])
    #expect(LinearizabilityJudge(register).judge(calls) == .linearizable(witness: [1]))
  }

  @Test func neverPlacesAPendingCallBeforeItsInvocation() {
    // The read returned 1 before the only write of 1 was invoked.
    let calls = history([
      Register(1, .read, 0...1, 1),
      Register(0, .write(1), from: 2),
    ])
    #expect(LinearizabilityJudge(register).judge(calls) == .notLinearizable(closest: []))
  }

  @Test func rejectsAPendingCallSeenToTakeEffectTwice() {
    // One pending enqueue of 7, dequeued twice.
    let calls = history([
      Queue(0, .enqueue(7), from: 0),
      Queue(1, .dequeue, 1...2, .value(7)),
      Queue(1, .dequeue, 3...4, .value(7)),
    ])
    #expect(LinearizabilityJudge(queue).judge(calls) == .notLinearizable(closest: [0, 1]))
  }

  @Test func memoizesConfigurationsSoAFailingSearchVisitsEachSetOnce() {
    // 14 overlapping increments, then a read that missed one: 14! orders, 2^14 sets of them.
    let increments = (0..<14).map { Counter($0, .increment, $0...20, nil) }
    let calls = history(increments + [Counter(0, .get, 21...22, 13)])
    let result = LinearizabilityJudge(counter).search(calls)
    #expect(!result.verdict.isLinearizable)
    #expect(result.configurations == 1 << 14)
  }

  @Test func checksMoreThan64Calls() {
    // 70 increments one after another, then 70 reads of 70 by overlapping tasks.
    let increments = (0..<70).map { Counter(0, .incrementAndGet, (2 * $0)...(2 * $0 + 1), $0 + 1) }
    let reads = (0..<70).map { Counter($0 + 1, .get, 140...141, 70) }
    let result = LinearizabilityJudge(counter).judge(history(increments + reads))
    #expect(result == .linearizable(witness: Array(0..<140)))
    var wrong = increments
    wrong[69] = Counter(0, .incrementAndGet, 138...139, 69)
    let verdict = LinearizabilityJudge(counter).judge(history(wrong + reads))
    #expect(verdict == .notLinearizable(closest: Array(0..<69)))
  }

  @Test func comparesErasedOutcomesIncludingErrors() {
    // An account whose withdrawal throws when the balance is short.
    struct Overdrawn: Error, Equatable {}
    enum Operation {
      case deposit(Int)
      case withdraw(Int)
    }
    let account = SequentialSpecification<Int, Operation, CallOutcome>(initial: 0) { balance, operation in
      switch operation {
      case .deposit(let amount):
        balance += amount
        return .returned(balance)
      case .withdraw(let amount):
        guard balance >= amount else { return .threw(Overdrawn()) }
        balance -= amount
        return .returnedVoid
      }
    }
    // The withdrawal overlapping the deposit failed: it went first.
    let calls = history([
      Entry(0, Operation.deposit(5), 0...3, CallOutcome.returned(5)),
      Entry(1, Operation.withdraw(5), 1...2, CallOutcome.threw(Overdrawn())),
    ])
    #expect(LinearizabilityJudge(account).judge(calls) == .linearizable(witness: [1, 0]))
    // After the deposit returned, it cannot fail.
    let late = history([
      Entry(0, Operation.deposit(5), 0...1, CallOutcome.returned(5)),
      Entry(1, Operation.withdraw(5), 2...3, CallOutcome.threw(Overdrawn())),
    ])
    #expect(LinearizabilityJudge(account).judge(late) == .notLinearizable(closest: [0]))
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct QuiescentConsistencyTests {
  @Test func allowsAStaleReadWhileAnotherCallIsInFlight() {
    // Task 2's long read keeps the object busy throughout: no quiescent moment orders the write
    // before the stale read, though real time does.
    let calls = history([
      Register(0, .write(1), 0...1, nil),
      Register(1, .read, 2...3, 0),
      Register(2, .read, 0...4, 1),
    ])
    #expect(!LinearizabilityJudge(register).judge(calls).isLinearizable)
    let quiescent = LinearizabilityJudge(register, condition: .quiescentConsistency)
    #expect(quiescent.judge(calls) == .linearizable(witness: [1, 0, 2]))
  }

  @Test func rejectsAStaleReadAfterAQuiescentMoment() {
    let calls = history([
      Register(0, .write(1), 0...1, nil),
      Register(1, .read, 2...3, 0),
    ])
    let quiescent = LinearizabilityJudge(register, condition: .quiescentConsistency)
    #expect(quiescent.judge(calls) == .notLinearizable(closest: [0]))
  }

  @Test func ordersCallsByTheQuiescentPeriodTheyStartIn() {
    let calls = history([
      Register(0, .write(1), 0...2, nil),
      Register(1, .read, 1...4, 1),
      Register(0, .read, 3...6, 1),  // invoked while task 1 reads: the same period
      Register(1, .write(2), 7...8, nil),  // after a quiet moment at 6
      Register(0, .read, 8...9, 2),  // invoked where the write returns: overlapping
      Register(2, .read, from: 10),  // pending
    ])
    let ordered = calls.quiescentlyOrdered()
    #expect(ordered.calls.map(\.invocation) == [0, 0, 0, 2, 2, 4])
    #expect(ordered.calls.map(\.response?.position) == [1, 1, 1, 3, 3, nil])
    #expect(ordered.calls.map(\.task) == calls.calls.map(\.task))
  }
}
