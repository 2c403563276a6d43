import Foundation
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Spins until `condition` holds, or until a real-time failure bound passes: inside a job, where
/// nothing may suspend. Returns whether the condition held.
private func spin(until condition: () -> Bool) -> Bool {
  let bound = RealTime.now + FailureBoundScale.scaled(.seconds(20))
  while !condition() {
    if RealTime.now >= bound { return false }
  }
  return true
}

/// An actor every run of the process can reach: what two tests share by accident.
private actor SharedLog {
  static let shared = SharedLog()
  private(set) var entries: [String] = []
  func append(_ entry: String) { entries.append(entry) }
  func clear() { entries = [] }
}

/// A body with a few tasks and yields: a seed gives it one order.
private func someConcurrentWork() async -> [Int] {
  let order = Locked<[Int]>([])
  await withTaskGroup(of: Void.self) { group in
    for index in 0..<4 {
      group.addTask {
        order.withLock { $0.append(index) }
        await Task.yield()  // allowed: a choice point of the run
        order.withLock { $0.append(10 + index) }
      }
    }
  }
  return order.value
}

/// Runs of different tests proceed side by side, each on its own thread, in the order it has alone;
/// an actor two of them use is theirs one after the other.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ParallelRunsTests {
  @Test func twoRunsProceedAtTheSameTime() async throws {
    let started = Locked(0)
    // Each body waits, inside its run, until the other run's body has started: with runs one at a
    // time, the first would wait out its failure bound.
    func run() async throws -> Bool {
      try await runDeterministically {
        started.withLock { $0 += 1 }
        return spin { started.value == 2 }
      }.value
    }
    async let first = run()
    async let second = run()
    let (a, b) = try await (first, second)
    #expect(a && b, "each run saw the other start while it ran")
  }

  @Test func sixteenRunsInParallelKeepTheOrderOfTheirSeed() async throws {
    let alone = try await runDeterministically(seed: 7) { await someConcurrentWork() }
    let outcomes = try await withThrowingTaskGroup(of: DeterministicOutcome<[Int]>.self) { group in
      for _ in 0..<16 {
        group.addTask { try await runDeterministically(seed: 7) { await someConcurrentWork() } }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(outcomes.count == 16)
    for outcome in outcomes {
      #expect(outcome.value == alone.value)
      #expect(outcome.trace == alone.trace)
      #expect(outcome.trace.timeline == alone.trace.timeline)
    }
  }

  @Test func anActorTwoRunsUseIsTheirsOneAfterTheOther() async throws {
    await SharedLog.shared.clear()
    let secondStarted = Locked(false)
    let firstHolds = Locked(false)
    async let first = runDeterministically { () async -> Void in
      await SharedLog.shared.append("first 1")
      firstHolds.withLock { $0 = true }
      // The second run is about to use the actor: this run still has it.
      #expect(spin { secondStarted.value }, "the second run never started")
      await SharedLog.shared.append("first 2")
    }
    _ = try await waitUntil("the first run holds the actor") { firstHolds.value }
    let second = try await runDeterministically { () async -> Void in
      secondStarted.withLock { $0 = true }
      await SharedLog.shared.append("second")
    }
    _ = try await first
    #expect(await SharedLog.shared.entries == ["first 1", "first 2", "second"])
    let waits = second.trace.timeline.text(lineWidth: nil)
    #expect(waits.contains("Other runs in progress:"), "\(waits)")
    #expect(waits.contains("to end: both use actor SharedLog"), "\(waits)")
  }

  @Test func twoExplorationsProceedAtTheSameTime() async throws {
    let started = Locked(0)
    // Each exploration's first schedule waits until the other's has started: with explorations
    // one at a time, it would wait out its failure bound.
    func exploration(seed: UInt64) async -> (ExplorationResult, Bool) {
      let saw = Locked(true)
      let (result, _) = await collectingIssues {
        await explore(.random(schedules: 3, seed: seed)) {
          if started.withLock({
            $0 += 1
            return $0
          }) <= 2 {
            let both = spin { started.value >= 2 }
            saw.withLock { $0 = $0 && both }
          }
          await withTaskGroup(of: Void.self) { group in
            group.addTask { await Task.yield() }  // allowed: choice points for the exploration
            group.addTask {}
          }
        }
      }
      return (result, saw.value)
    }
    async let first = exploration(seed: 1)
    async let second = exploration(seed: 2)
    let ((a, sawA), (b, sawB)) = await (first, second)
    #expect(a.passed && b.passed, "\(a)\n\(b)")
    #expect(sawA && sawB, "each exploration saw the other start while it ran")
  }

  @Test func mainActorJobsOfParallelRunsNeverOverlap() async throws {
    await MainActor.run { MainCounter.value = 0 }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          _ = try await runDeterministically {
            for _ in 0..<50 {
              await MainActor.run {
                let read = MainCounter.value
                MainCounter.value = read + 1
              }
              await Task.yield()  // allowed: a choice point of the run
            }
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(await MainActor.run { MainCounter.value } == 400, "no write was lost")
  }
}

@MainActor private enum MainCounter {
  static var value = 0
}

/// The decisions of ``ActorClaims/Registry``.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ActorClaimsTests {
  final class Object {}
  final class Run {}

  @Test func aFreeActorIsClaimedAndItsOwnerGoesOn() {
    var registry = ActorClaims.Registry()
    let actor = Object()
    let run = ObjectIdentifier(Run())
    guard case .proceed = registry.claim(1, object: actor, by: run, mayWait: true) else {
      Issue.record("a free actor is claimed")
      return
    }
    guard case .proceed = registry.claim(1, object: actor, by: run, mayWait: true) else {
      Issue.record("its owner goes on")
      return
    }
  }

  @Test func anotherRunWaitsAndGetsTheActorWhenTheOwnerEnds() {
    var registry = ActorClaims.Registry()
    let actor = Object()
    let (a, b) = (Run(), Run())
    let (first, second) = (ObjectIdentifier(a), ObjectIdentifier(b))
    _ = registry.claim(1, object: actor, by: first, mayWait: true)
    guard case .wait(let turn, let holder) = registry.claim(1, object: actor, by: second, mayWait: true)
    else {
      Issue.record("another run waits")
      return
    }
    #expect(holder.run == first)
    let granted = registry.release(first)
    #expect(granted.count == 1 && granted.first === turn)
    guard case .proceed = registry.claim(1, object: actor, by: second, mayWait: true) else {
      Issue.record("the waiting run owns it now")
      return
    }
  }

  @Test func aWaitThatWouldCloseACycleOrHoldTheMainActorGoesOnBeside() {
    var registry = ActorClaims.Registry()
    let (x, y) = (Object(), Object())
    let (a, b) = (Run(), Run())
    let (first, second) = (ObjectIdentifier(a), ObjectIdentifier(b))
    _ = registry.claim(1, object: x, by: first, mayWait: true)
    _ = registry.claim(2, object: y, by: second, mayWait: true)
    guard case .wait = registry.claim(2, object: y, by: first, mayWait: true) else {
      Issue.record("the first run waits for the second")
      return
    }
    guard case .goesOnBeside(_, let why) = registry.claim(1, object: x, by: second, mayWait: true) else {
      Issue.record("the second run must not wait for the first, which waits for it")
      return
    }
    #expect(why.contains("waits for an actor this run holds"))
    let c = Run()
    guard
      case .goesOnBeside(_, let mainWhy) = registry.claim(
        1, object: x, by: ObjectIdentifier(c), mayWait: false)
    else {
      Issue.record("a thread holding the main actor never waits")
      return
    }
    #expect(mainWhy.contains("main actor"))
  }

  @Test func theAddressOfAFreedActorIsFree() {
    var registry = ActorClaims.Registry()
    let (a, b) = (Run(), Run())
    do {
      let gone = Object()
      _ = registry.claim(1, object: gone, by: ObjectIdentifier(a), mayWait: true)
    }
    let newcomer = Object()
    guard case .proceed = registry.claim(1, object: newcomer, by: ObjectIdentifier(b), mayWait: true)
    else {
      Issue.record("another actor at a freed actor's address is free")
      return
    }
  }
}

/// The slots that bound how many explorations run at once.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationSlotsTests {
  @Test func aWaiterGetsTheSlotGivenBackAndACancelledOneStopsWaiting() async throws {
    let slots = ExplorationSlots(slots: 1)
    #expect(await slots.acquire() == .zero)
    let second = Task { await slots.acquire() }
    try await waitUntil("the second waits") { slots.waiting == 1 }
    let third = Task { await slots.acquire() }
    try await waitUntil("the third waits") { slots.waiting == 2 }
    third.cancel()
    #expect(await third.value == nil, "a cancelled waiter stops waiting, holding no slot")
    slots.release()
    #expect(await second.value != nil, "the slot given back goes to the first waiter")
    #expect(slots.waiting == 0)
  }

  @Test func aLongExplorationLetsAWaitingOneGoFirst() async throws {
    let slots = ExplorationSlots(slots: 1)
    _ = await slots.acquire()
    let waiter = Task {
      let waited = await slots.acquire()
      slots.release()
      return waited
    }
    try await waitUntil("the other exploration waits") { slots.waiting == 1 }
    #expect(await slots.share(heldSince: RealTime.now) == nil, "within its slice it keeps its core")
    let takenBack = await slots.share(heldSince: RealTime.now - ExplorationSlots.slice)
    #expect(takenBack != nil, "past its slice it lets the waiting one go first")
    #expect(await waiter.value != nil)
    slots.release()
  }
}
