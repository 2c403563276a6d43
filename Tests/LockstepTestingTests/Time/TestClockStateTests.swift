import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// The seed of a random test: `LOCKSTEP_SEED` when set (to replay a failure), otherwise fresh.
func randomTestSeed() -> UInt64 {
  if let text = ProcessInfo.processInfo.environment["LOCKSTEP_SEED"], let seed = UInt64(text) {
    return seed
  }
  return UInt64.random(in: 0...UInt64.max)
}

private func ms(_ value: Int) -> Duration { .milliseconds(value) }
private func id(_ value: Int) -> WaiterID { WaiterID(rawValue: UInt64(value)) }

/// The obviously correct reference the state machine is checked against: plain arrays, linear
/// scans, a sort for every wake-up.
private struct ReferenceClock {
  struct Sleeper {
    let id: Int
    let deadline: Int
    let sequence: Int
  }
  var now = 0
  var sleepers: [Sleeper] = []
  /// An array, not a set: random picks must not depend on the process's hash seed.
  var resumed: [Int] = []
  var nextSequence = 0
  var countWatchers: [(id: Int, target: Int)] = []

  enum Decision: Equatable {
    case suspended(satisfied: [Int])
    case elapsed
    case cancelled
  }

  mutating func sleep(_ id: Int, until deadline: Int, isCancelled: Bool) -> Decision {
    if isCancelled { return .cancelled }
    if deadline <= now { return .elapsed }
    sleepers.append(Sleeper(id: id, deadline: deadline, sequence: nextSequence))
    nextSequence += 1
    let due = countWatchers.filter { $0.target <= sleepers.count }.map(\.id).sorted()
    countWatchers.removeAll { $0.target <= sleepers.count }
    return .suspended(satisfied: due)
  }

  mutating func cancel(_ id: Int) -> Int? {
    guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
    sleepers.remove(at: index)
    return id
  }

  /// nil when backwards.
  mutating func advance(to target: Int) -> [Int]? {
    guard target >= now else { return nil }
    now = target
    let due = sleepers.filter { $0.deadline <= target }
      .sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
    sleepers.removeAll { $0.deadline <= target }
    resumed += due.map(\.id)
    return due.map(\.id)
  }

  mutating func run() -> [Int] {
    var woken: [Int] = []
    while let next = sleepers.map(\.deadline).min() {
      woken += advance(to: next) ?? []
    }
    return woken
  }

  /// Whether `id` was a woken sleeper that had not returned yet.
  mutating func returned(_ id: Int) -> Bool {
    guard let index = resumed.firstIndex(of: id) else { return false }
    resumed.remove(at: index)
    return true
  }

  mutating func watchSleepers(_ id: Int, target: Int) -> Bool {
    guard sleepers.count < target else { return false }
    countWatchers.append((id, target))
    return true
  }

  mutating func departWatcher(_ id: Int) -> Int? {
    guard let index = countWatchers.firstIndex(where: { $0.id == id }) else { return nil }
    countWatchers.remove(at: index)
    return id
  }

  var pendingDeadlines: [Int] {
    sleepers.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }.map(\.deadline)
  }
}

private func suspendedTicket(_ decision: TestClockState<Int>.SleepDecision)
  -> TestClockState<Int>.SleeperTicket?
{
  if case .suspended(let ticket, _) = decision { return ticket }
  return nil
}

private func handedOn(_ handoff: TestClockState<Int>.Handoff) -> String {
  switch handoff {
  case .none: "nobody"
  case .sleeper(let waiter): "sleeper \(waiter)"
  case .advance(let waiter): "advance \(waiter)"
  }
}

extension TestClockState {
  fileprivate mutating func checkStallIsOver(_ id: UInt64) -> Bool {
    if case .over = checkStall(id, returns: 0) { return true }
    return false
  }
}

private func woken(_ decision: TestClockState<Int>.AdvanceDecision) -> [Int]? {
  switch decision {
  case .advanced(let woken): woken.map(\.waiter)
  case .backwards: nil
  }
}

private func simplified(_ decision: TestClockState<Int>.SleepDecision) -> ReferenceClock.Decision {
  switch decision {
  case .suspended(_, let satisfied): .suspended(satisfied: satisfied)
  case .elapsed: .elapsed
  case .cancelled: .cancelled
  }
}

/// Runs `operations` random operations against both the state machine and the reference; returns
/// the first divergence, or nil. Tokens are the ids themselves.
private func runModelComparison(seed: UInt64, operations: Int) -> String? {
  var random = SplitMix64(seed: seed)
  var state = TestClockState<Int>()
  var model = ReferenceClock()
  var nextID = 1
  var everIssued: [Int] = []
  var watcherIDs: [Int] = []
  /// The ticket of each sleeper the state machine registered.
  var tickets: [Int: TestClockState<Int>.SleeperTicket] = [:]

  for step in 0..<operations {
    // Phases change the mix so that sleepers pile up (and the heap compacts) now and then.
    let phase = (step / 2_000) % 3
    let weights: [Int] =
      switch phase {
      case 0: [30, 12, 20, 10, 3, 12, 4, 6, 3]  // balanced
      case 1: [60, 25, 3, 2, 1, 4, 1, 3, 1]  // sleepers accumulate, many cancelled
      default: [20, 40, 10, 5, 2, 10, 4, 6, 3]  // cancellation-heavy
      }
    var roll = Int.random(in: 0..<weights.reduce(0, +), using: &random)
    var operation = 0
    while roll >= weights[operation] {
      roll -= weights[operation]
      operation += 1
    }
    let context = "seed \(seed), step \(step), operation \(operation)"

    switch operation {
    case 0:  // sleep
      let identifier = nextID
      nextID += 1
      everIssued.append(identifier)
      let span = phase == 1 ? 500 : 40
      let deadline = model.now + Int.random(in: -3...span, using: &random)
      let cancelled = Int.random(in: 0..<20, using: &random) == 0
      let expected = model.sleep(identifier, until: deadline, isCancelled: cancelled)
      let decision = state.sleep(until: ms(deadline), identifier, isCancelled: cancelled)
      if case .suspended(let ticket, _) = decision { tickets[identifier] = ticket }
      let actual = simplified(decision)
      if actual != expected { return "\(context): sleep → \(actual), expected \(expected)" }
    case 1:  // cancel a sleeper, or somebody who is not (any more) a sleeper
      let target: Int
      if !model.sleepers.isEmpty, Int.random(in: 0..<10, using: &random) < 7 {
        target = model.sleepers.randomElement(using: &random)!.id
      } else {
        target = everIssued.randomElement(using: &random) ?? 0
      }
      let expected = model.cancel(target)
      let actual = tickets[target].flatMap { state.cancel($0) }
      if actual != expected { return "\(context): cancel(\(target)) → \(String(describing: actual))" }
    case 2:  // advance by (possibly negative)
      let target = model.now + Int.random(in: -2...30, using: &random)
      let expected = model.advance(to: target)
      let actual = woken(state.advance(to: ms(target)))
      if actual != expected {
        return "\(context): advance(to: \(target)) woke \(String(describing: actual)), "
          + "expected \(String(describing: expected))"
      }
    case 3:  // advance to an absolute time, sometimes in the past
      let target = Int.random(in: max(0, model.now - 10)...(model.now + 200), using: &random)
      let expected = model.advance(to: target)
      let actual = woken(state.advance(to: ms(target)))
      if actual != expected {
        return "\(context): advance(to: \(target)) woke \(String(describing: actual)), "
          + "expected \(String(describing: expected))"
      }
    case 4:  // run
      let expected = model.run()
      var actual: [Int] = []
      while let due = state.advanceToNextDeadline() { actual += due.map(\.waiter) }
      if actual != expected { return "\(context): run woke \(actual), expected \(expected)" }
    case 5:  // woken sleepers return from sleep (or an id that was never woken)
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        let target =
          model.resumed.isEmpty || Int.random(in: 0..<5, using: &random) == 0
          ? (everIssued.randomElement(using: &random) ?? 0)
          : model.resumed.randomElement(using: &random)!
        _ = model.returned(target)  // the resumed counts are compared after every step
        switch tickets[target].map({ state.returned($0) }) {
        case .sleeper?, .advance?: return "\(context): returned(\(target)) handed on with no advance"
        case .none?, nil: break
        }
      }
    case 6:  // a sleeper takes its place, its task is cancelled, then it suspends: it throws
      let identifier = nextID
      nextID += 1
      everIssued.append(identifier)
      let deadline = model.now + Int.random(in: 1...40, using: &random)
      let expected = model.sleep(identifier, until: deadline, isCancelled: true)
      guard let ticket = state.reserve(until: ms(deadline)) else {
        return "\(context): reserve refused a future deadline"
      }
      let cancelledEarly = state.cancel(ticket)
      let actual = simplified(state.attach(ticket, identifier, isCancelled: false))
      if cancelledEarly != nil || actual != expected {
        return "\(context): cancelled before suspending → \(actual), expected \(expected)"
      }
    case 7:  // a test waits for a number of sleepers
      let watcher = nextID
      nextID += 1
      watcherIDs.append(watcher)
      let target = Int.random(in: 0...(model.sleepers.count + 3), using: &random)
      let expected = model.watchSleepers(watcher, target: target)
      let actual = state.watchSleepers(id(watcher), target: target, watcher)
      if actual != expected { return "\(context): watchSleepers(\(target)) → \(actual)" }
    default:  // a watcher times out or is cancelled
      guard let watcher = watcherIDs.randomElement(using: &random) else { break }
      let expected = model.departWatcher(watcher)
      let actual = state.departCountWatcher(id(watcher))
      if actual != expected { return "\(context): depart(\(watcher)) → \(String(describing: actual))" }
    }

    if state.now != ms(model.now) { return "\(context): now \(state.now), expected \(model.now) ms" }
    if state.sleeperCount != model.sleepers.count {
      return "\(context): \(state.sleeperCount) sleepers, expected \(model.sleepers.count)"
    }
    if state.resumedCount != model.resumed.count {
      return "\(context): \(state.resumedCount) resumed, expected \(model.resumed.count)"
    }
    if state.nextDeadline() != model.sleepers.map(\.deadline).min().map(ms) {
      return "\(context): next deadline \(String(describing: state.nextDeadline()))"
    }
    if step % 997 == 0, state.pendingDeadlines != model.pendingDeadlines.map(ms) {
      return "\(context): pending deadlines differ"
    }
  }
  return nil
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TestClockStateTests {
  @Test func modelBasedRandomOperationsMatchTheReference() async {
    await onAThreadOfItsOwn {
      let seed = randomTestSeed()
      let operations = 100_000
      print(
        "TestClockState model-based test: \(operations) operations, seed \(seed) (replay: LOCKSTEP_SEED=\(seed))"
      )
      let divergence = runModelComparison(seed: seed, operations: operations)
      #expect(divergence == nil, "replay with LOCKSTEP_SEED=\(seed)")
    }
  }

  @Test func wakesInDeadlineOrderWithTiesInRegistrationOrder() {
    var state = TestClockState<Int>()
    _ = state.sleep(until: ms(30), 1, isCancelled: false)
    _ = state.sleep(until: ms(10), 2, isCancelled: false)
    _ = state.sleep(until: ms(30), 3, isCancelled: false)
    _ = state.sleep(until: ms(10), 4, isCancelled: false)
    _ = state.sleep(until: ms(31), 5, isCancelled: false)
    #expect(woken(state.advance(to: ms(9))) == [])
    #expect(woken(state.advance(to: ms(30))) == [2, 4, 1, 3])
    #expect(state.sleeperCount == 1)
    #expect(state.now == ms(30))
  }

  @Test func aCancelledTaskIsNeverCounted() {
    var state = TestClockState<Int>()
    let watching = state.watchSleepers(id(9), target: 1, 9)
    guard case .cancelled = state.sleep(until: ms(10), 1, isCancelled: true) else {
      Issue.record("expected cancelled")
      return
    }
    #expect(watching)
    #expect(state.sleeperCount == 0)
    #expect(state.departCountWatcher(id(9)) == 9)  // the cancelled sleeper satisfied nobody
  }

  @Test func pastDeadlinesElapseWithoutRegistering() {
    var state = TestClockState<Int>()
    _ = state.advance(to: ms(5))
    guard case .elapsed = state.sleep(until: ms(5), 1, isCancelled: false) else {
      Issue.record("expected elapsed")
      return
    }
    #expect(state.sleeperCount == 0)
  }

  @Test func movingBackwardsIsRefusedAndTimeStays() {
    var state = TestClockState<Int>()
    _ = state.advance(to: ms(20))
    guard case .backwards(let now) = state.advance(to: ms(19)) else {
      Issue.record("expected backwards")
      return
    }
    #expect(now == ms(20))
    #expect(state.now == ms(20))
  }

  @Test func cancellingAfterWakingDoesNothing() {
    var state = TestClockState<Int>()
    let ticket = suspendedTicket(state.sleep(until: ms(10), 1, isCancelled: false))!
    #expect(woken(state.advance(to: ms(10))) == [1])
    let result1 = state.cancel(ticket)
    #expect(result1 == nil)
    #expect(state.resumedCount == 1)
    let result2 = state.returned(ticket)
    #expect(handedOn(result2) == "nobody")
    #expect(state.resumedCount == 0)
    let result3 = state.returned(ticket)  // a second return counts nothing
    #expect(handedOn(result3) == "nobody")
    #expect(state.resumedCount == 0)
  }

  @Test func manyCancellationsCompactTheHeap() {
    var state = TestClockState<Int>()
    var tickets: [TestClockState<Int>.SleeperTicket] = []
    for index in 1...1_000 {
      if let ticket = suspendedTicket(state.sleep(until: ms(index), index, isCancelled: false)) {
        tickets.append(ticket)
      }
    }
    #expect(tickets.count == 1_000)
    for (index, ticket) in zip(1...1_000, tickets) where index % 10 != 0 { _ = state.cancel(ticket) }
    #expect(state.sleeperCount == 100)
    let result4 = state.nextDeadline()
    #expect(result4 == ms(10))
    var order: [Int] = []
    while let due = state.advanceToNextDeadline() { order += due.map(\.waiter) }
    #expect(order == Array(stride(from: 10, through: 1_000, by: 10)))
  }

  @Test func aTicketOfAFreedSlotDoesNotReachTheSleeperThatReusesIt() {
    var state = TestClockState<Int>()
    let old = suspendedTicket(state.sleep(until: ms(10), 1, isCancelled: false))!
    let result5 = state.cancel(old)
    #expect(result5 == 1)
    let new = suspendedTicket(state.sleep(until: ms(20), 2, isCancelled: false))!
    #expect(new.slot == old.slot)
    let result6 = state.cancel(old)  // stale: the slot holds sleeper 2 now
    #expect(result6 == nil)
    #expect(state.sleeperCount == 1)
    #expect(woken(state.advance(to: ms(20))) == [2])
  }

  // MARK: Chains: each returning sleeper hands on to the next one due

  @Test func aChainHandsOnFromSleeperToSleeperThenBackToTheAdvance() throws {
    var state = TestClockState<Int>()
    var tickets: [Int: TestClockState<Int>.SleeperTicket] = [:]
    for (token, deadline) in [(1, 10), (2, 30), (3, 20), (4, 40)] {
      tickets[token] = suspendedTicket(state.sleep(until: ms(deadline), token, isCancelled: false))
    }
    _ = state.moveTime(to: ms(30))
    let advance = state.beginAdvance(to: ms(30))
    guard case .sleeper(_, let first) = state.takeNextEvent(for: advance, chained: true) else {
      Issue.record("expected the sleeper due at 10 ms")
      return
    }
    #expect(first == 1)
    let result7 = state.waitForChain(advance, 100)  // the advance (token 100) suspends
    #expect(result7)
    let result8 = state.returned(try #require(tickets[1]))  // 20 ms comes next
    #expect(handedOn(result8) == "sleeper 3")
    let result9 = state.returned(try #require(tickets[3]))  // then 30 ms
    #expect(handedOn(result9) == "sleeper 2")
    let result10 = state.returned(try #require(tickets[2]))  // 40 ms is not due
    #expect(handedOn(result10) == "advance 100")
    let result11 = state.takeNextEvent(for: advance, chained: true)
    #expect(result11 == nil)
    let counts = state.endAdvance(advance)
    #expect(counts.sleepers == 3 && counts.work == 0)
    #expect(state.sleeperCount == 1 && state.resumedCount == 0)
  }

  @Test func aRunChainMovesTimeToEachNextDeadlineAsItsSleeperReturns() throws {
    var state = TestClockState<Int>()
    var tickets: [Int: TestClockState<Int>.SleeperTicket] = [:]
    for (token, deadline) in [(1, 10), (2, 20)] {
      tickets[token] = suspendedTicket(state.sleep(until: ms(deadline), token, isCancelled: false))
    }
    let run = state.beginAdvance(to: nil)
    guard case .sleeper = state.takeNextEvent(for: run, chained: true) else {
      Issue.record("expected the first sleeper")
      return
    }
    #expect(state.now == ms(10))
    let result12 = state.waitForChain(run, 100)
    #expect(result12)
    let result13 = state.returned(try #require(tickets[1]))
    #expect(handedOn(result13) == "sleeper 2")
    // Time moves to sleeper 2's deadline when sleeper 2 returns, not when sleeper 1 hands on:
    // sleeper 1's next statement, after its `sleep` returned, still reads its own deadline.
    #expect(state.now == ms(10))
    let result14 = state.returned(try #require(tickets[2]))
    #expect(handedOn(result14) == "advance 100")
    #expect(state.now == ms(20))
    let result15 = state.endAdvance(run)
    #expect(result15.sleepers == 2)
  }

  @Test func dueWorkGoesBackToTheAdvanceWhichRunsIt() {
    var state = TestClockState<Int>()
    let first = suspendedTicket(state.sleep(until: ms(10), 1, isCancelled: false))!
    state.schedule(WaiterID.next(), on: WaiterID.next(), at: ms(15), site: CallSite(line: 7), {})
    _ = state.sleep(until: ms(20), 2, isCancelled: false)
    _ = state.moveTime(to: ms(20))
    let advance = state.beginAdvance(to: ms(20))
    _ = state.takeNextEvent(for: advance, chained: true)
    let result16 = state.waitForChain(advance, 100)
    #expect(result16)
    let result17 = state.returned(first)  // the work at 15 ms comes first
    #expect(handedOn(result17) == "advance 100")
    guard case .work(let item) = state.takeNextEvent(for: advance, chained: true) else {
      Issue.record("expected the work item")
      return
    }
    #expect(item.site.line == 7)
    guard case .sleeper(_, let second) = state.takeNextEvent(for: advance, chained: true) else {
      Issue.record("expected sleeper 2")
      return
    }
    #expect(second == 2)
    let result18 = state.endAdvance(advance)
    #expect(result18 == (sleepers: 2, work: 1))
  }

  @Test func aStoppedOrStalledChainNoLongerHandsOn() {
    var state = TestClockState<Int>()
    let first = suspendedTicket(state.sleep(until: ms(10), 1, isCancelled: false))!
    _ = state.sleep(until: ms(10), 2, isCancelled: false)
    _ = state.moveTime(to: ms(10))
    let advance = state.beginAdvance(to: ms(10))
    _ = state.takeNextEvent(for: advance, chained: true)
    let result19 = state.waitForChain(advance, 100)
    #expect(result19)
    // The bound expires once with progress unknown, then with none since it started: a stall.
    guard case .stalled(let waiter) = state.checkStall(advance, returns: 0) else {
      Issue.record("expected a stall")
      return
    }
    #expect(waiter == 100)
    let result20 = state.returned(first)  // late: the advance went on without it
    #expect(handedOn(result20) == "nobody")
    let result21 = state.stopChain(advance)
    #expect(result21 == nil)
    guard case .sleeper(_, let second) = state.takeNextEvent(for: advance, chained: false) else {
      Issue.record("expected sleeper 2, not waited for")
      return
    }
    #expect(second == 2)
    let result22 = state.checkStallIsOver(advance)
    #expect(result22)
  }

  @Test func aBoundThatSawProgressStartsAgain() {
    var state = TestClockState<Int>()
    let first = suspendedTicket(state.sleep(until: ms(10), 1, isCancelled: false))!
    _ = state.sleep(until: ms(10), 2, isCancelled: false)
    _ = state.moveTime(to: ms(10))
    let advance = state.beginAdvance(to: ms(10))
    _ = state.takeNextEvent(for: advance, chained: true)
    let result23 = state.waitForChain(advance, 100)
    #expect(result23)
    let result24 = state.returned(first)
    #expect(handedOn(result24) == "sleeper 2")
    guard case .progressed(let returns) = state.checkStall(advance, returns: 0) else {
      Issue.record("expected progress")
      return
    }
    #expect(returns == 1)
  }

  @Test func heapPopsInOrder() {
    var random = SplitMix64(seed: 42)
    let values = (0..<2_000).map { _ in Int.random(in: -500...500, using: &random) }
    var heap = Heap<Int>()
    for value in values.prefix(1_000) { heap.insert(value) }
    var built = Heap(values.suffix(1_000))
    var popped: [Int] = []
    while let value = heap.popMin() { popped.append(value) }
    while let value = built.popMin() { popped.append(value) }
    #expect(popped == values.prefix(1_000).sorted() + values.suffix(1_000).sorted())
    #expect(heap.isEmpty && heap.min == nil)
  }
}

final class TestClockStateXCTests: XCTestCase {
  func testModelBasedRandomOperationsMatchTheReference() {
    let seed = randomTestSeed()
    print("TestClockState model-based test (XCTest): 100000 operations, seed \(seed)")
    XCTAssertNil(runModelComparison(seed: seed, operations: 100_000), "replay with LOCKSTEP_SEED=\(seed)")
  }
}
