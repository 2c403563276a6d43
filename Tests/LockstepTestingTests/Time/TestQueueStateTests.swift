import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The work part of `TestClockState`: the queue side of the shared timeline, without threads.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TestQueueStateTests {
  private typealias State = TestClockState<Int>

  private func ms(_ value: Int) -> Duration { .milliseconds(value) }

  /// What the next event is: `"s<waiter>"` for a sleeper, `"w<site line>"` for work.
  private func take(_ state: inout State, upTo target: Int) -> String? {
    switch state.takeNextEvent(upTo: ms(target)) {
    case .sleeper(_, let waiter): "s\(waiter)"
    case .work(let item): "w\(item.site.line)"
    case nil: nil
    }
  }

  private func schedule(_ state: inout State, _ tag: UInt, on queue: WaiterID, at deadline: Int?) -> WaiterID
  {
    let id = WaiterID.next()
    state.schedule(id, on: queue, at: deadline.map(ms), site: CallSite(line: tag), {})
    return id
  }

  @Test func workAndSleepersComeOutInDeadlineOrderTiesInRegistrationOrder() {
    var state = State()
    let queue = WaiterID.next()
    _ = schedule(&state, 1, on: queue, at: 20)
    _ = state.sleep(until: ms(10), 7, isCancelled: false)
    _ = schedule(&state, 2, on: queue, at: 10)
    _ = state.sleep(until: ms(20), 8, isCancelled: false)
    _ = schedule(&state, 3, on: queue, at: nil)  // now
    #expect(state.pendingWorkCount(of: queue) == 3)
    let result1 = state.nextEventDeadline()
    #expect(result1 == .zero)
    #expect(take(&state, upTo: 0) == "w3")
    #expect(take(&state, upTo: 0) == nil)
    let result2 = state.moveTime(to: ms(20))
    #expect(result2 == nil)
    var order: [String] = []
    while let next = take(&state, upTo: 20) { order.append(next) }
    #expect(order == ["s7", "w2", "w1", "s8"])
    #expect(state.pendingWorkCount(of: queue) == 0)
    #expect(state.resumedCount == 2)
    let result3 = state.nextEventDeadline()
    #expect(result3 == nil)
  }

  @Test func movingTimeBackwardsIsRefused() {
    var state = State()
    let result4 = state.moveTime(to: ms(5))
    #expect(result4 == nil)
    let result5 = state.moveTime(to: ms(4))
    #expect(result5 == ms(5))
    #expect(state.now == ms(5))
    let queue = WaiterID.next()
    _ = schedule(&state, 1, on: queue, at: 1)  // in the past: due now
    #expect(state.pendingWork(of: queue).map(\.deadline) == [ms(5)])
  }

  @Test func cancelledWorkIsNeverTakenAndCountsStayExact() {
    var state = State()
    let queue = WaiterID.next()
    var ids: [WaiterID] = []
    for index in 0..<200 { ids.append(schedule(&state, UInt(index), on: queue, at: index % 7)) }
    for index in stride(from: 0, to: 200, by: 2) {
      let removed = state.cancelWork(ids[index])
      #expect(removed)
    }
    let twice = state.cancelWork(ids[0])
    #expect(!twice)
    #expect(state.pendingWorkCount(of: queue) == 100)
    _ = state.moveTime(to: ms(10))
    var taken: [UInt] = []
    while case .work(let item) = state.takeNextEvent(upTo: ms(10)) { taken.append(item.site.line) }
    let expected = (0..<200).filter { $0 % 2 == 1 }.sorted { ($0 % 7, $0) < ($1 % 7, $1) }
    #expect(taken == expected.map(UInt.init))
    #expect(state.pendingWorkCount(of: queue) == 0)
    let afterTaken = state.cancelWork(ids[1])
    #expect(!afterTaken)
  }

  @Test func takingTheWorkOfOneQueueLeavesTheOthers() {
    var state = State()
    let main = WaiterID.next()
    let background = WaiterID.next()
    _ = schedule(&state, 1, on: background, at: nil)
    _ = schedule(&state, 2, on: main, at: nil)
    _ = schedule(&state, 3, on: background, at: nil)
    _ = schedule(&state, 4, on: main, at: nil)
    _ = schedule(&state, 5, on: main, at: 1)  // not due
    let result6 = state.takeNextWork(of: main, upTo: .zero)
    #expect(result6?.site.line == 2)
    let result7 = state.takeNextWork(of: main, upTo: .zero)
    #expect(result7?.site.line == 4)
    let result8 = state.takeNextWork(of: main, upTo: .zero)
    #expect(result8 == nil)
    #expect(state.pendingWorkCount(of: main) == 1)
    #expect(state.pendingWorkCount(of: background) == 2)
    #expect(take(&state, upTo: 0) == "w1")
    #expect(take(&state, upTo: 0) == "w3")
    #expect(take(&state, upTo: 0) == nil)
  }

  @Test(arguments: 0..<20)
  func randomOperationsMatchAReferenceModel(seed: Int) {
    var generator = SplitMix64(seed: UInt64(seed))
    var state = State()
    let queue = WaiterID.next()
    // Reference: pending work as (deadline, sequence, tag), and the current time.
    var reference: [(deadline: Int, sequence: Int, tag: UInt, id: WaiterID)] = []
    var now = 0
    for step in 0..<400 {
      switch Int.random(in: 0..<10, using: &generator) {
      case 0..<5:
        let deadline = now + Int.random(in: -2..<20, using: &generator)
        let id = schedule(&state, UInt(step), on: queue, at: deadline)
        reference.append((max(deadline, now), step, UInt(step), id))
      case 5..<7:
        guard !reference.isEmpty else { continue }
        let victim = reference.remove(at: Int.random(in: 0..<reference.count, using: &generator))
        let removed = state.cancelWork(victim.id)
        #expect(removed)
      default:
        let target = now + Int.random(in: 0..<10, using: &generator)
        let result9 = state.moveTime(to: ms(target))
        #expect(result9 == nil)
        now = target
        var taken: [UInt] = []
        while case .work(let item) = state.takeNextEvent(upTo: ms(target)) { taken.append(item.site.line) }
        let due = reference.filter { $0.deadline <= target }.sorted {
          ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence)
        }
        reference.removeAll { $0.deadline <= target }
        #expect(taken == due.map(\.tag), "seed \(seed), step \(step)")
      }
      #expect(state.pendingWorkCount(of: queue) == reference.count)
    }
  }
}
