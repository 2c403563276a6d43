import ConsumerApp
import Foundation
import Lockstep
import LockstepTesting
import Testing
import XCTest

struct FakeNames: NameService {
  let calls = ControlledCalls<Void, String>("names")
  func fetchName() async throws -> String { try await calls.call(()) }
}

@MainActor @Test(.verifyingControlledCalls, .timeLimit(.minutes(1)))
func theNewestLoadWins() async throws {
  let clock = TestClock()
  let tasks = TestTaskFactory()
  let names = FakeNames()
  let model = GreetingModel(service: names, clock: clock, tasks: tasks)
  model.load()
  model.load()
  try await clock.waitForSleepers(count: 2)
  await clock.advance(by: .milliseconds(100))
  try await names.calls.waitUntilPending(1)
  names.calls.succeed(1, with: "Blob")
  try await tasks.waitUntilIdle()
  #expect(model.greeting == "Hello, Blob!")
  #expect(tasks.createdCount == 2)
}

@MainActor @Test(.deterministic(seed: 3), .timeLimit(.minutes(1)))
func underTheSchedulerSleepsAreVirtual() async throws {
  let clock = TestClock(advancesAutomatically: true)
  let tasks = TestTaskFactory()
  let gate = Gate("names")
  struct Gated: NameService {
    let gate: Gate
    func fetchName() async throws -> String {
      try await gate.wait()
      return "Ada"
    }
  }
  let model = GreetingModel(service: Gated(gate: gate), clock: clock, tasks: tasks)
  model.load()
  try await gate.waitForArrivals(1)
  gate.open()
  try await tasks.waitUntilIdle()
  #expect(model.greeting == "Hello, Ada!")
}

@MainActor @Test(.timeLimit(.minutes(1)))
func aDeterministicBodyAssignsToTheTestsLocals() async throws {
  struct Named: NameService {
    func fetchName() async throws -> String { "Grace" }
  }
  let tasks = TestTaskFactory()
  let model = GreetingModel(service: Named(), clock: TestClock(advancesAutomatically: true), tasks: tasks)
  var greetings: [String] = []
  try await withDeterministicScheduling(seed: 5) {
    model.load()  // the main-actor model, used directly
    try await tasks.waitUntilIdle()
    greetings.append(model.greeting)  // assigns the test's local
  }
  #expect(greetings == ["Hello, Grace!"])
}

@Test(.timeLimit(.minutes(1)))
func exploreFindsNoFailureInACorrectCounter() async {
  let result = await explore(.exhaustive(maxPreemptions: 1)) {
    actor Counter {
      var value = 0
      func increment() { value += 1 }
    }
    let counter = Counter()
    async let first: Void = counter.increment()
    async let second: Void = counter.increment()
    _ = await (first, second)
    #expect(await counter.value == 2)
  }
  #expect(result.failure == nil && result.isComplete)
}

@Test(.timeLimit(.minutes(1)))
func aFoundRaceIsPinnedAndAFlakyBodyIsCounted() async throws {
  actor Slot {
    var value: Int?
    func set(_ new: Int) { value = new }
  }
  // The last writer wins; the check wants 2, which only some schedules give.
  let body: @Sendable () async throws -> Void = {
    let slot = Slot()
    let first = Task { await slot.set(1) }
    let second = Task { await slot.set(2) }
    await first.value
    await second.value
    if await slot.value != 2 { throw CancellationError() }
  }
  let (found, _) = await collectingIssues { await explore(.exhaustive(maxPreemptions: 1), body) }
  let failure = try #require(found.failure)
  #expect(failure.shard == nil)
  let (pinned, _) = await collectingIssues {
    await explore(.random(schedules: 5).forAtMost(.seconds(30)), pinned: ["\(failure.token)"], body)
  }
  #expect(pinned.failure?.pinnedToken == failure.token.description)
  let counted = await stress(times: 3) {}
  #expect(counted.runs == 3 && counted.failedRuns == 0)
}

@Test(.timeLimit(.minutes(1)))
func misuseIsReportedAtTheCallersLine() async {
  let (_, issues) = await collectingIssues { _ = Barrier(parties: 0) }
  #expect(issues.count == 1)
  #expect(issues.first?.site.fileID.description == "ConsumerTests/ConsumerTests.swift")
}

/// Code that reads the clock itself, from a package that depends on Lockstep (Linux: virtual now,
/// deterministic hashing and task names from creation, with no variable set).
@Test(.timeLimit(.minutes(1)))
func ordinaryCodeReadsVirtualTimeAndItsTasksAreNamed() async throws {
  #if os(Linux)
    #expect(VirtualNow.isAvailable, "\(VirtualNow.unavailableReason ?? "")")
    var elapsed: (Duration, TimeInterval)?
    try await withDeterministicScheduling {
      let (start, date) = (ContinuousClock.now, Date())
      let deadline = start + .milliseconds(80)
      while ContinuousClock.now < deadline {
        try await Task.sleep(until: deadline, clock: .continuous)  // virtual time
      }
      elapsed = (start.duration(to: .now), Date().timeIntervalSince(date))
    }
    #expect(elapsed?.0 == .milliseconds(80))
    #expect(elapsed?.1 == 0.08)  // Date() starts at its reference date: exact
    let result = await explore(.exhaustive(maxPreemptions: 1)) {
      let tasks = (0..<2).map { _ in Task { await Task.yield() } }  // a choice point
      for task in tasks { await task.value }
    }
    #expect(result.hashingIsDeterministic && result.isComplete && result.offPlanSchedules == 0)
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let parked = Task(name: "parked") {
          await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
        }
        await parked.value
      }
    }
    #expect(deadlock?.tasks.contains { $0.contains("\"parked\"") } == true, "\(String(describing: deadlock))")
  #endif
}

final class ConsumerXCTests: XCTestCase {
  func testADeterministicRunReturnsItsTrace() async throws {
    let outcome = try await runDeterministically(seed: 1) { () async -> Int in
      let child = Task { 21 }
      return await child.value * 2
    }
    XCTAssertEqual(outcome.value, 42)
    XCTAssertFalse(outcome.trace.steps.isEmpty)
  }
}

/// An account whose withdrawals check the balance, await, then debit.
actor ConsumerAccount {
  struct Overdrawn: Error, Equatable {}
  private(set) var balance = 100
  private let audit = ConsumerAudit()

  func withdraw(_ amount: Int) async throws -> Int {
    guard balance >= amount else { throw Overdrawn() }
    await audit.record(amount)
    balance -= amount
    return balance
  }
}

actor ConsumerAudit {
  func record(_ amount: Int) {}
}

@Test(.timeLimit(.minutes(1)))
func checkLinearizabilityReportsTheOverdraft() async {
  let operations: [LinearizabilityOperation<ConsumerAccount, Never>] = [
    .call("withdraw", with: [30, 80]) { try await $0.withdraw($1) },
    .call("balance") { await $0.balance },
  ]
  let (result, issues) = await collectingIssues {
    await checkLinearizability(of: { ConsumerAccount() }, operations: operations)
  }
  #expect(issues.filter { !$0.isWarning }.count == 1 && result.failure?.isNotLinearizable == true)
  #expect(result.failure?.calls.contains("withdraw(") == true)
}

/// Ordinary conversions, in a file that imports LockstepTesting alone, mean what they mean without it.
@Test(.timeLimit(.minutes(1)))
func ordinaryExpressionsAreUnchangedByImportingLockstepTesting() {
  let values = OrdinaryExpressions.values()
  #expect(values == ["12", "2.5", "42", "4", "1,2", "[1, 2]", "[1.5]", "[7]", "255", "3.0"])
}
