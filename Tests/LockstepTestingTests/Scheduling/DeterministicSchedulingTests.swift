import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// Whether the caller runs on a deterministic run's drain thread.
private func onSchedulerThread() -> Bool { DrainingRun.current != nil }

private actor Counter {
  var value = 0
  func increment() -> Bool {
    value += 1
    return onSchedulerThread()
  }
}

@MainActor private func mainActorWork() -> Bool { onSchedulerThread() }

/// Tasks that interleave at every yield: the order of `log` depends on the scheduler's choices.
private func interleavingWorkload() async -> [Int] {
  let log = Locked<[Int]>([])
  await withTaskGroup(of: Void.self) { group in
    for worker in 0..<5 {
      group.addTask {
        for _ in 0..<4 {
          log.withLock { $0.append(worker) }
          await Task.yield()  // allowed: a choice point for the scheduler, not a guess
        }
      }
    }
  }
  return log.value
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DeterministicSchedulingTests {
  @Test func everyKindOfJobRunsOnTheSchedulerThread() async throws {
    let checks = try await withDeterministicScheduling { () async throws -> [String: Bool] in
      var checks: [String: Bool] = ["body": onSchedulerThread()]
      checks["Task {}"] = await Task { onSchedulerThread() }.value
      checks["Task.detached"] = await Task.detached { onSchedulerThread() }.value
      async let child = onSchedulerThread()
      checks["async let"] = await child
      checks["task group"] = await withTaskGroup(of: Bool.self) { group in
        group.addTask { onSchedulerThread() }
        return await group.next()!
      }
      let counter = Counter()
      checks["actor"] = await counter.increment()
      await Task.yield()  // allowed: the job kind under test
      checks["after yield"] = onSchedulerThread()
      _ = await counter.increment()
      await Task.yield()  // allowed: the job kind under test
      checks["yield after actor call"] = onSchedulerThread()
      await withCheckedContinuation { continuation in
        Task { continuation.resume() }
      }
      checks["continuation resume"] = onSchedulerThread()
      checks["MainActor"] = await mainActorWork()
      try await Task.sleep(for: .seconds(30))  // allowed: virtual time
      checks["after Task.sleep"] = onSchedulerThread()  // allowed: virtual time
      try await ContinuousClock().sleep(for: .seconds(1))
      try await SuspendingClock().sleep(for: .seconds(1))
      checks["after clock sleeps"] = onSchedulerThread()
      return checks
    }
    for (kind, onThread) in checks.sorted(by: { $0.key < $1.key }) {
      #expect(onThread, "\(kind) did not run on the scheduler's thread")
    }
    #expect(checks.count == 12)
  }

  @Test func differentSeedsGiveDifferentOrders() async throws {
    var orders = Set<[Int]>()
    for seed in UInt64(1)...10 {
      orders.insert(try await withDeterministicScheduling(seed: seed) { await interleavingWorkload() })
    }
    #expect(orders.count >= 8)
    let fifo = try await withDeterministicScheduling { await interleavingWorkload() }
    // FIFO: round robin, worker after worker.
    #expect(fifo == (0..<4).flatMap { _ in Array(0..<5) })
  }

  @Test func longSleepsRunInVirtualTimeInDeadlineOrder() async throws {
    let outcome = try await runDeterministically { () async throws -> [String] in
      let log = Locked<[String]>([])
      async let slow: Void = {
        try await Task.sleep(for: .seconds(600))  // allowed: virtual time
        log.withLock { $0.append("ten minutes") }
      }()
      async let fast: Void = {
        try await Task.sleep(for: .milliseconds(80))  // allowed: virtual time
        log.withLock { $0.append("80 ms") }
      }()
      try await slow
      try await fast
      return log.value
    }
    #expect(outcome.value == ["80 ms", "ten minutes"])
    #expect(outcome.trace.steps.last?.time ?? .zero >= .seconds(600))
    #expect(outcome.trace.steps.contains { $0.wokeFromSleep })
  }

  @Test func aRunThatEndsWithoutItsBodyThrowsDeterministicSchedulingUnavailableWithItsReason() throws {
    // What a run throws when it finished but its body never did (the runtime lost the body's
    // job), here made directly: no public call can cause it on purpose.
    let error = #expect(throws: DeterministicSchedulingUnavailable.self) {
      _ = try DeterministicOutcome<Int>(storedValue: nil, trace: SchedulerTrace())
    }
    let unavailable = try #require(error)
    #expect(unavailable.reason == "the run finished without its body finishing")
    #expect(unavailable.description == "Deterministic scheduling is unavailable: \(unavailable.reason)")
    // Where the scheduler can run, installing it throws nothing.
    #expect(throws: Never.self) { try RuntimeHooks.install() }
  }

  @Test func aCancelledSleepIsCleanedUp() async throws {
    let outcome = try await runDeterministically { () async -> Bool in
      let sleeper = Task { try await Task.sleep(for: .seconds(3600)) }  // allowed: virtual time
      await Task.yield()  // allowed: deterministic FIFO order, not a guess
      sleeper.cancel()
      return await (try? sleeper.value) == nil
    }
    #expect(outcome.value)
    // The cancelled sleep left virtual time: the run never moved the clock to its deadline.
    #expect(outcome.trace.steps.last?.time == .zero, "\(outcome.trace)")
    #expect(!outcome.trace.steps.contains { $0.wokeFromSleep })
  }

  @Test func aDeadlockIsReportedAtOnceWithTheTaskNames() async throws {
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let stuck = Task(name: "stuck worker") {
          await Task.yield()  // allowed: a choice point for the scheduler, not a guess
          await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
        await stuck.value
      }
    }
    #expect(error?.quarantined == true)
    #expect(error?.description.contains("\"stuck worker\"") == true)
    #expect(error?.description.contains("(the body)") == true)
    #expect(error?.site.fileID.description == "LockstepTestingTests/DeterministicSchedulingTests.swift")
  }

  @Test func aCancellableDeadlockUnwindsTheBody() async throws {
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let waiter = Locked<CheckedContinuation<Void, any Error>?>(nil)
        try await withTaskCancellationHandler {
          try await withCheckedThrowingContinuation { continuation in
            waiter.withLock { $0 = continuation }
          }
        } onCancel: {
          waiter.withLock { $0 }?.resume(throwing: CancellationError())
        }
      }
    }
    #expect(error?.quarantined == false)
  }

  @Test func aWaitAtAGateThatNobodyOpensIsADeadlockNamingTheGate() async throws {
    let gate = Gate("never opened")
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling { try await gate.wait(timeout: .seconds(3600)) }
    }
    #expect(error?.quarantined == false)
    #expect(error?.tasks.first?.contains("waiting for Gate(\"never opened\") to open") == true)
  }

  @Test func aWaitsFailureBoundElapsesInVirtualTimeWhileOthersSleep() async throws {
    let gate = Gate("opened too late")
    let outcome = try await runDeterministically { () async -> Bool in
      let opener = Task {
        try await Task.sleep(for: .seconds(7200))  // allowed: virtual time
        gate.open()
      }
      defer { opener.cancel() }
      do {
        try await gate.wait(timeout: .seconds(3600))
        return false
      } catch is WaitTimeoutError {
        return true
      } catch {
        return false
      }
    }
    #expect(outcome.value)
  }

  @Test func aDeadlockReportSaysWhatEachTaskWaitsForAndWhichFinished() async throws {
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let tasks = TestTaskFactory()
        let calls = ControlledCalls<Int, Int>("backend")
        _ = tasks.task(name: "quick") {}
        _ = tasks.task(name: "fetch") { try? await calls.call(1) }
        try await tasks.waitUntilIdle()
      }
    }
    let tasks = error?.tasks ?? []
    #expect(tasks.contains { $0.contains("\"quick\"") && $0.hasSuffix(": finished") })
    // A TestTaskFactory task says where it was created.
    #expect(
      tasks.contains {
        $0.contains("\"fetch\" (created at LockstepTestingTests/DeterministicSchedulingTests.swift:")
      })
    #expect(tasks.contains { $0.contains("\"fetch\"") && $0.contains("call 1 of \"backend\"") })
    #expect(tasks.first?.contains("every task of the TestTaskFactory to finish") == true)
  }

  @Test func aJobFromAnotherThreadComesBackToTheRunWithinTheGracePeriod() async throws {
    let result = try await withDeterministicScheduling(gracePeriod: .seconds(30)) {
      () async -> Bool in
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume() }
      }
      return onSchedulerThread()
    }
    #expect(result)
  }

  @Test func codeOutsideTheRunKeepsWorkingMeanwhile() async throws {
    let waiter = OutsideResumption()
    async let run: Bool = withDeterministicScheduling(gracePeriod: .seconds(30)) {
      // Suspends until the code outside the run has done its work, then resumes from outside.
      await waiter.wait()
      return onSchedulerThread()
    }
    // Runs are serialised, so under load this one may start only after the runs of other tests:
    // the bound is a failure bound well past that, inside the test's time limit.
    do {
      try await waiter.arrivals.waitForCount(1, timeout: .seconds(45))
    } catch {
      waiter.resume()  // lets the run end instead of waiting out its timeout
      throw error
    }
    // The run's body resumed this task (the test's own, older than the run): it stays outside.
    #expect(!onSchedulerThread())
    let outside = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<200 {
        group.addTask {
          await Task.yield()  // allowed: a choice point for the scheduler, not a guess
          return onSchedulerThread()
        }
      }
      return await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(outside.count == 200 && outside.allSatisfy { !$0 })
    waiter.resume()
    #expect(try await run)
  }

  @Test func aRunInsideARunIsRejected() async throws {
    await #expect(throws: NestedDeterministicRun.self) {
      try await withDeterministicScheduling {
        try await withDeterministicScheduling {}
      }
    }
  }

  @Test(.deterministic(seed: 7)) @MainActor func theTraitRunsMainActorTestsOnTheScheduler() async throws {
    #expect(onSchedulerThread())
    MainActor.assertIsolated()
    try await Task.sleep(for: .seconds(120))  // allowed: virtual time
    let value = await Task.detached { onSchedulerThread() }.value
    #expect(value)
    #expect(onSchedulerThread())
  }

  @Test(.deterministic()) func theTraitRunsNonisolatedTestsOnTheScheduler() async {
    #expect(onSchedulerThread())
    #expect(await mainActorWork())
  }
}

@Suite(.deterministic(), .timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DeterministicSuiteTests {
  @Test func everyTestOfTheSuiteRunsOnTheScheduler() async {
    #expect(onSchedulerThread())
  }

  @Test(arguments: [1, 2]) func parameterizedCasesToo(_ value: Int) async {
    #expect(onSchedulerThread())
  }
}

final class DeterministicSchedulingXCTests: XCTestCase {
  func testTheBodyRunsOnTheSchedulerWithVirtualSleeps() async throws {
    let outcome = try await runDeterministically(seed: 3) { () async throws -> Bool in
      try await Task.sleep(for: .seconds(600))  // allowed: virtual time
      return onSchedulerThread()
    }
    XCTAssertTrue(outcome.value)
    XCTAssertFalse(outcome.trace.steps.isEmpty)
  }

  func testTheBlockingVariantWorksInASynchronousTest() throws {
    let outcome = try withDeterministicSchedulingBlocking(seed: 5) { () async -> Int in
      await withTaskGroup(of: Int.self) { group in
        for value in 1...10 { group.addTask { value } }
        return await group.reduce(0, +)
      }
    }
    XCTAssertEqual(outcome.value, 55)
  }

  func testADeadlockThrowsTheReport() async {
    do {
      try await withDeterministicScheduling {
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
      }
      XCTFail("expected a deadlock")
    } catch let deadlock as DeterministicDeadlock {
      XCTAssertTrue(deadlock.description.contains("Deadlock"), deadlock.description)
    } catch {
      XCTFail("unexpected \(error)")
    }
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DeterministicTraitDeadlockTests {
  @Test func aTestThatDeadlocksUnderTheTraitFailsWithTheReport() async throws {
    let trait: DeterministicSchedulingTrait = .deterministic()
    let test = try #require(Test.current)
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await trait.provideScope(for: test, testCase: Test.Case.current) {
        // Waits for something nobody will ever do, but honours cancellation.
        let waiter = Locked<CheckedContinuation<Void, any Error>?>(nil)
        try await withTaskCancellationHandler {
          try await withCheckedThrowingContinuation { continuation in
            waiter.withLock { $0 = continuation }
          }
        } onCancel: {
          waiter.withLock { $0 }?.resume(throwing: CancellationError())
        }
      }
    }
    #expect(error?.quarantined == false)
    #expect(error?.description.contains("(the body)") == true)
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct DeterministicTraitQuarantineTests {
  @Test func aTestThatDeadlocksBeyondCancellationFailsWithoutStoppingTheProcess() async throws {
    let trait: DeterministicSchedulingTrait = .deterministic()
    let test = try #require(Test.current)
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await trait.provideScope(for: test, testCase: Test.Case.current) {
        // Waits for a continuation nobody resumes, and ignores cancellation.
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
      }
    }
    #expect(error?.quarantined == true)
    #expect(error?.description.contains("(the body)") == true)
  }
}

/// A continuation the run's body waits on, resumed once from outside the run — also when the
/// test gives up before the body has arrived, so that a failure never leaves the run waiting.
final class OutsideResumption: Sendable {
  let arrivals = EventCounter("the run's body waiting for the code outside the run")
  private let state = Locked<(continuation: CheckedContinuation<Void, Never>?, resumed: Bool)>(
    (nil, false))

  func wait() async {
    await withCheckedContinuation { continuation in
      let resumeNow = state.withLock { state in
        if state.resumed { return true }
        state.continuation = continuation
        return false
      }
      if resumeNow { continuation.resume() }
      arrivals.record()
    }
  }

  func resume() {
    state.withLock { state in
      state.resumed = true
      defer { state.continuation = nil }
      return state.continuation
    }?.resume()
  }
}

/// A thousand runs in a row. Alone it takes a second under the thread sanitizer, but in the whole
/// suite under the sanitizer with every core busy (`TSAN=1 scripts/stress.sh`) it once ran past a
/// minute. Its limit is a failure bound for a hang, wide enough that a passing run never reaches
/// it.
@Suite(.timeLimit(.minutes(max(3, SuiteTimeLimit.minutes))))
struct RepeatedRunTests {
  @Test func theSameSeedGivesTheSameTraceAThousandTimes() async throws {
    let reference = try await runDeterministically(seed: 12345) { await interleavingWorkload() }
    for _ in 0..<1000 {
      let again = try await runDeterministically(seed: 12345) { await interleavingWorkload() }
      #expect(again.trace == reference.trace)
      #expect(again.value == reference.value)
      if again.trace != reference.trace { break }
    }
  }
}
