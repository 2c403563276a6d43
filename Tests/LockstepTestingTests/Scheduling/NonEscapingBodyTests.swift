import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

// The bodies of withDeterministicScheduling, runDeterministically, the blocking form and explore
// are ordinary non-escaping closures: they assign to the test's locals, use main-actor state of a
// @MainActor test directly, and return non-Sendable values — and still run as a task of the run.

/// Whether the caller runs on a deterministic run's drain thread.
private func onSchedulerThread() -> Bool { DrainingRun.current != nil }

/// A main-actor model, as an app's view model is: not Sendable across actors, only usable on the
/// main actor.
@MainActor private final class ShelfModel {
  var titles: [String] = []
  var refreshes = 0

  /// Loads three titles in child tasks (jobs the run schedules), then publishes them.
  func refresh() async {
    refreshes += 1
    var loaded: [String] = []
    await withTaskGroup(of: String.self) { group in
      for title in ["Dune", "Emma", "Ulysses"] { group.addTask { title } }
      for await title in group { loaded.append(title) }
    }
    titles = loaded.sorted()
  }
}

/// A value that is not Sendable: a class with mutable state.
private final class Tally {
  var counts: [String: Int] = [:]
  var ranOnScheduler = false
}

private actor Counter {
  var value = 0
  func increment() { value += 1 }
}

/// Sums 1...n in child tasks.
private func sumInChildTasks(_ n: Int) async -> Int {
  await withTaskGroup(of: Int.self) { group in
    for value in 1...n { group.addTask { value } }
    return await group.reduce(0, +)
  }
}

/// Waits for a continuation nobody resumes and that ignores cancellation: a deadlock that
/// cancelling the body does not unwind, so the run quarantines the body's task.
private func waitForever() async {
  await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct NonEscapingBodyTests {
  @Test func aBodyAssignsToTheTestsLocals() async throws {
    var sum = 0
    var ranOnScheduler = false
    try await withDeterministicScheduling(seed: 3) {
      sum = await sumInChildTasks(10)
      ranOnScheduler = onSchedulerThread()
    }
    #expect(sum == 55)
    #expect(ranOnScheduler)

    var steps: [Int] = []
    let outcome = try await runDeterministically(seed: 4) {
      steps.append(await sumInChildTasks(3))
      steps.append(await sumInChildTasks(4))
    }
    #expect(steps == [6, 10])
    #expect(!outcome.trace.steps.isEmpty)
  }

  @Test func anExploreBodyAssignsToTheTestsLocalsInEverySchedule() async {
    var schedules = 0
    var finalValues: Set<Int> = []
    let result = await explore(.exhaustive(maxPreemptions: 1)) {
      schedules += 1
      let counter = Counter()
      async let first: Void = counter.increment()
      async let second: Void = counter.increment()
      _ = await (first, second)
      finalValues.insert(await counter.value)
    }
    #expect(result.failure == nil)
    #expect(schedules == result.schedulesRun)
    #expect(schedules > 1)
    #expect(finalValues == [2])
  }

  @MainActor @Test func aMainActorModelIsUsedDirectlyInTheBody() async throws {
    let model = ShelfModel()
    var isolatedToMain = false
    try await withDeterministicScheduling(seed: 5) {
      model.titles = ["placeholder"]  // synchronous main-actor access: the body is main-actor code
      await model.refresh()
      isolatedToMain = onSchedulerThread() && model.titles.count == 3
      MainActor.assertIsolated()
    }
    #expect(isolatedToMain)
    #expect(model.titles == ["Dune", "Emma", "Ulysses"])
    #expect(model.refreshes == 1)
  }

  @Test func aBodyReturnsANonSendableValue() async throws {
    let tally = try await withDeterministicScheduling(seed: 6) { () async -> Tally in
      let tally = Tally()
      tally.counts["sum"] = await sumInChildTasks(5)
      tally.ranOnScheduler = onSchedulerThread()
      return tally
    }
    #expect(tally.counts == ["sum": 15])
    #expect(tally.ranOnScheduler)

    let outcome = try await runDeterministically(seed: 6) { () async -> Tally in
      let tally = Tally()
      tally.counts["sum"] = await sumInChildTasks(6)
      return tally
    }
    #expect(outcome.value.counts == ["sum": 21])
  }

  @Test func aSendableClosureValueStillConverts() async throws {
    let body: @Sendable () async -> Int = { await sumInChildTasks(4) }
    #expect(try await withDeterministicScheduling(body) == 10)
    #expect(try await runDeterministically(seed: 1, body).value == 10)
  }
}

/// A body that deadlocks beyond cancellation leaves its task quarantined, still holding the
/// caller's non-escaping closure: each entry point must throw the report and the process must go
/// on (instead of stopping with "closure argument was escaped").
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct QuarantinedBodyTests {
  @Test func withDeterministicSchedulingThrowsTheReportAndTheProcessGoesOn() async throws {
    var reached = false
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        reached = true
        await waitForever()
      }
    }
    #expect(error?.quarantined == true)
    #expect(error?.description.contains("(the body)") == true)
    #expect(reached)
    #expect(try await withDeterministicScheduling { await sumInChildTasks(3) } == 6)
  }

  @Test func runDeterministicallyThrowsTheReportAndTheProcessGoesOn() async throws {
    let tally = Tally()
    let error = await #expect(throws: DeterministicDeadlock.self) {
      _ = try await runDeterministically(seed: 2) { () async -> Int in
        tally.counts["before"] = 1
        await waitForever()
        return tally.counts.count
      }
    }
    #expect(error?.quarantined == true)
    #expect(tally.counts == ["before": 1])
    #expect(try await runDeterministically(seed: 2) { await sumInChildTasks(3) }.value == 6)
  }

  @Test func exploreGivesUpTheBodyInEveryQuarantinedSchedule() async throws {
    var runs = 0
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 50, seed: 8)) {
        runs += 1
        // Ready tasks that yield: choice points, so the failing schedule has context switches
        // to shrink, and the shrinker runs more schedules — each deadlocks and is quarantined.
        await withTaskGroup(of: Void.self) { group in
          for _ in 0..<4 {
            group.addTask {
              await Task.yield()  // allowed: a choice point for the scheduler, not a guess
              await Task.yield()  // allowed: a choice point for the scheduler, not a guess
            }
          }
        }
        await waitForever()
      }
    }
    let failure = try #require(result.failure)
    // The failure was shrunk: a second schedule ran, deadlocked and was quarantined as well.
    #expect(failure.contextSwitches < failure.found.contextSwitches)
    #expect(runs >= 2, "only \(runs) schedule(s) ran: the quarantine path ran once")
    #expect(failure.failures.contains { $0.contains("quarantined") })
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("Deadlock") == true)
    #expect(try await withDeterministicScheduling { await sumInChildTasks(3) } == 6)
  }

  @Test func aBodyThatTimesOutIsQuarantinedAndTheProcessGoesOn() async throws {
    var yields = 0
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await withDeterministicScheduling(timeout: .milliseconds(50)) {
        while true {
          yields += 1
          await Task.yield()  // allowed: job after job until the run's bound
        }
      }
    }
    #expect(error?.pending.first?.contains("quarantined") == true, "\(String(describing: error))")
    #expect(yields > 0)
    #expect(try await withDeterministicScheduling { await sumInChildTasks(3) } == 6)
  }
}

/// The references to the context of `lent`'s closure, as the runtime counts them. Only this test
/// reads the count, to check that Lockstep neither keeps nor gives up a reference of the body.
private func references(to lent: LentBody<Void>) -> Int {
  lent.unowned.context.map { runtimeRetainCount(UnsafeMutableRawPointer(mutating: $0)) } ?? 0
}

@_silgen_name("swift_retainCount")
private func runtimeRetainCount(_ object: UnsafeMutableRawPointer) -> Int

/// One lent body, quarantined by two runs while another holder takes it during each: returns what
/// went wrong, or `nil`. Lockstep must leave the holder's references alone (giving one up would
/// free the body while the holder and the lending still hold it) and keep none of its own.
private func quarantineTwiceWhileAnotherHolderTakesTheBody() async -> String? {
  let slot = Locked<LentBody<Void>?>(nil)
  let holder = Locked<[LentBody<Void>]>([])
  var runs = 0
  var problems: [String] = []
  do {
    try await RunLifecycle.lending(
      {
        runs += 1
        // Another holder takes the body while the run has it.
        if let lent = slot.withLock({ $0 }) { holder.withLock { $0.append(lent) } }
        if runs <= 2 { await waitForever() }
      },
      to: { (lent: LentBody<Void>) in
        slot.withLock { $0 = lent }
        // Whatever happens, nothing of the test holds the body once the lending ends.
        defer {
          holder.withLock { $0.removeAll() }
          slot.withLock { $0 = nil }
        }
        try await RunLifecycle.starting(at: CallSite()) {
          let before = references(to: lent)
          for run in 1...2 {
            let completion = await DeterministicRun(order: .fifo, timeout: .seconds(30), site: CallSite())
              .perform(lent)
            guard case .deadlock(let report) = completion.drained, report.quarantined else {
              problems.append("run \(run) was not quarantined: \(completion.drained)")
              return
            }
          }
          let held = references(to: lent)
          if held != before + 2 {
            problems.append("two quarantines, two references held elsewhere: \(held), not \(before) + 2")
          }
          holder.withLock { $0.removeAll() }
          let released = references(to: lent)
          if released != before {
            problems.append("once the other holder let go: \(released), not \(before)")
          }
          let completion = await DeterministicRun(order: .fifo, timeout: .seconds(30), site: CallSite())
            .perform(lent)
          guard case .finished = completion.drained else {
            problems.append("the third run did not finish: \(completion.drained)")
            return
          }
        }
      })
  } catch {
    problems.append("\(error)")
  }
  if runs != 3 { problems.append("the body ran \(runs) times, not 3") }
  return problems.isEmpty ? nil : problems.joined(separator: "; ")
}

// Serialized, as `CrashReportTests`: an exit test holds a thread of the cooperative pool while its
// child process runs.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .serialized)
struct LentBodyReferenceTests {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    /// A reference given up too many would free the body while it is still held: the process would
    /// stop, or use freed memory (`swift test --sanitize=address` reports it), so the check runs in
    /// a child process.
    @Test func aBodyHeldElsewhereKeepsItsReferencesThroughQuarantines() async throws {
      let child = try #require(
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
          if let problem = await quarantineTwiceWhileAnotherHolderTakesTheBody() {
            FileHandle.standardError.write(Data("lent body: \(problem)\n".utf8))
            exit(1)
          }
        })
      let text = String(decoding: child.standardErrorContent, as: UTF8.self)
      #expect(!text.contains("lent body:"), "\(text)")
    }
  #endif
}

final class NonEscapingBodyXCTests: XCTestCase {
  func testABodyAssignsToTheTestsLocals() async throws {
    var sum = 0
    try await withDeterministicScheduling(seed: 1) { sum = await sumInChildTasks(10) }
    XCTAssertEqual(sum, 55)
  }

  @MainActor func testAMainActorModelIsUsedDirectlyInTheBody() async throws {
    let model = ShelfModel()
    var onScheduler = false
    try await withDeterministicScheduling(seed: 2) {
      await model.refresh()
      onScheduler = onSchedulerThread()
    }
    XCTAssertTrue(onScheduler)
    XCTAssertEqual(model.titles, ["Dune", "Emma", "Ulysses"])
  }

  func testABodyReturnsANonSendableValue() async throws {
    let tally = try await withDeterministicScheduling { () async -> Tally in
      let tally = Tally()
      tally.counts["sum"] = await sumInChildTasks(4)
      return tally
    }
    XCTAssertEqual(tally.counts, ["sum": 10])
  }

  func testTheBlockingFormAssignsToLocalsAndReturnsANonSendableValue() throws {
    var sum = 0
    let outcome = try withDeterministicSchedulingBlocking(seed: 3) { () async -> Tally in
      sum = await sumInChildTasks(5)
      let tally = Tally()
      tally.ranOnScheduler = onSchedulerThread()
      return tally
    }
    XCTAssertEqual(sum, 15)
    XCTAssertTrue(outcome.value.ranOnScheduler)
  }

  func testTheBlockingFormThrowsTheReportOfAQuarantinedBodyAndTheProcessGoesOn() throws {
    var reached = false
    XCTAssertThrowsError(
      try withDeterministicSchedulingBlocking {
        reached = true
        await waitForever()
      }
    ) { error in
      XCTAssertEqual((error as? DeterministicDeadlock)?.quarantined, true, "\(error)")
    }
    XCTAssertTrue(reached)
    XCTAssertEqual(try withDeterministicSchedulingBlocking { await sumInChildTasks(3) }.value, 6)
  }

  func testWithDeterministicSchedulingThrowsTheReportOfAQuarantinedBody() async throws {
    do {
      try await withDeterministicScheduling { await waitForever() }
      XCTFail("expected a deadlock")
    } catch let deadlock as DeterministicDeadlock {
      XCTAssertTrue(deadlock.quarantined)
    }
    let after = try await withDeterministicScheduling { await sumInChildTasks(3) }
    XCTAssertEqual(after, 6)
  }
}
