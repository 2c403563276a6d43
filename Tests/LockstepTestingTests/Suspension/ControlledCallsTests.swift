import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

private struct Refusal: Error, Equatable {
  let code: Int
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ControlledCallsTests {
  @Test func callsGetIDsInArrivalOrderAndRecordTheirArguments() async throws {
    let calls = ControlledCalls<Int, String>("loader")
    let first = Task { try await calls.call(10) }
    #expect(try await calls.waitUntilPending(1) == 10)
    let second = Task { try await calls.call(20) }
    #expect(try await calls.waitUntilPending(2) == 20)
    #expect(calls.arguments == [10, 20])
    #expect(calls.callCount == 2)
    #expect(calls.pendingIDs == [1, 2])

    calls.succeed(2, with: "twenty")
    #expect(try await second.value == "twenty")
    #expect(calls.pendingIDs == [1])
    calls.fail(1, with: Refusal(code: 1))
    await #expect(throws: Refusal(code: 1)) { try await first.value }
    #expect(calls.pendingCount == 0)
    #expect(calls.verifyAllCompleted())
  }

  @Test func theOldestPendingCallIsCompletedFirst() async throws {
    let calls = ControlledCalls<Int, Int>()
    let tasks = TestTaskFactory()
    let results = EventRecorder<Int>("results")
    for argument in 1...3 {
      tasks.task { results.record((try? await calls.call(argument)) ?? -argument) }
      try await calls.waitUntilPending(argument)
    }
    calls.succeed(2, with: 20)
    #expect(calls.succeedOldest(with: 10) == 1)
    #expect(calls.failOldest(with: Refusal(code: 3)) == 3)
    try await tasks.waitUntilIdle()
    #expect(Set(results.values) == [10, 20, -3])
    let (oldest, issues) = await collectingIssues { calls.succeedOldest(with: 0) }
    #expect(oldest == nil)
    #expect(issues.map(\.message) == ["controlled: succeedOldest found no pending call"])
  }

  @Test func failOldestFailsTheOldestPendingCallWithTheError() async throws {
    let calls = ControlledCalls<Int, Int>("loader")
    let first = Task { try await calls.call(1) }
    try await calls.waitUntilPending(1)
    let second = Task { try await calls.call(2) }
    try await calls.waitUntilPending(2)
    #expect(calls.failOldest(with: Refusal(code: 7)) == 1)
    let error = await #expect(throws: Refusal.self) { try await first.value }
    #expect(error == Refusal(code: 7))
    #expect(calls.pendingIDs == [2])
    #expect(calls.failOldest(with: Refusal(code: 8)) == 2)
    await #expect(throws: Refusal(code: 8)) { try await second.value }
    let (none, issues) = await collectingIssues { calls.failOldest(with: Refusal(code: 9)) }
    #expect(none == nil)
    expectOneIssue(issues, containing: "loader: failOldest found no pending call")
  }

  @Test func failAllEndsEveryPendingAndLaterCall() async throws {
    let calls = ControlledCalls<String, Int>("backend")
    let tasks = TestTaskFactory()
    let failures = EventRecorder<Int>("failures")
    for argument in ["a", "b"] {
      tasks.task {
        do { _ = try await calls.call(argument) } catch let error as Refusal {
          failures.record(error.code)
        } catch {}
      }
    }
    try await calls.waitUntilCallCount(2)
    calls.failAll(Refusal(code: 503))
    try await tasks.waitUntilIdle()
    #expect(failures.values == [503, 503])
    await #expect(throws: Refusal(code: 503)) { try await calls.call("later") }
    #expect(Set(calls.arguments.prefix(2)) == ["a", "b"])
    #expect(calls.arguments.last == "later")
    #expect(calls.pendingCount == 0)
    let (_, issues) = await collectingIssues { calls.succeed(3, with: 1) }
    #expect(issues.map(\.message) == ["backend: cannot succeed call #3: it already ended (failed)."])
  }

  @Test func theDescriptionNamesTheInstanceItsCallCountAndThePendingIDs() async throws {
    let calls = ControlledCalls<Int, Int>("loader")
    #expect(calls.description.contains("\"loader\""))
    #expect(calls.description.contains("0 calls"))
    #expect(!calls.description.contains("#"))
    let callers = [Task { try await calls.call(1) }, Task { try await calls.call(2) }]
    try await calls.waitUntilCallCount(2)
    #expect(calls.description.contains("2 calls"))
    #expect(calls.description.contains("#1") && calls.description.contains("#2"))
    calls.succeed(1, with: 1)
    #expect(calls.description.contains("2 calls"))
    #expect(!calls.description.contains("#1") && calls.description.contains("#2"))
    calls.succeed(2, with: 2)
    for caller in callers { _ = try await caller.value }
    #expect(!calls.description.contains("#"))
  }

  @Test func aCallWithoutOutputIsCompletedWithSucceedID() async throws {
    let calls = ControlledCalls<String, Void>("saver")
    let caller = Task { try await calls.call("draft") }
    try await calls.waitUntilPending(1)
    calls.succeed(1)
    try await caller.value
    #expect(calls.pendingCount == 0)
    let line: UInt = #line + 1
    let (_, issues) = await collectingIssues { calls.succeed(1) }
    #expect(issues.map(\.message) == ["saver: cannot succeed call #1: it already ended (succeeded)."])
    #expect(issues.first?.site.line == line)
    #expect(issues.first?.site.fileID.description == "LockstepTestingTests/ControlledCallsTests.swift")
  }

  @Test func completingAMissingOrFinishedCallIsAReportedMisuse() async throws {
    let calls = ControlledCalls<Int, String>("loader")
    let caller = Task { try await calls.call(7) }
    try await calls.waitUntilPending(1)
    calls.succeed(1, with: "seven")
    #expect(try await caller.value == "seven")

    let line: UInt = #line + 4
    let (_, issues) = await collectingIssues {
      calls.succeed(1, with: "again")
      calls.fail(1, with: Refusal(code: 0))
      calls.succeed(5, with: "five")
    }
    #expect(
      issues.map(\.message) == [
        "loader: cannot succeed call #1: it already ended (succeeded).",
        "loader: cannot fail call #1: it already ended (succeeded).",
        "loader: cannot succeed call #5: no such call has arrived (1 call(s) so far). "
          + "Wait for it with waitUntilPending(5) first.",
      ])
    #expect(issues.first?.site.line == line - 2)
    #expect(issues.last?.site.line == line)
    #expect(issues.last?.site.fileID.description == "LockstepTestingTests/ControlledCallsTests.swift")
  }

  @Test func aCallerCancellationIsIgnoredByDefault() async throws {
    let calls = ControlledCalls<Int, String>("stubborn")
    let caller = Task { try await calls.call(1) }
    try await calls.waitUntilPending(1)
    caller.cancel()
    #expect(calls.pendingIDs == [1])
    calls.succeed(1, with: "late answer")
    #expect(try await caller.value == "late answer")
  }

  @Test func cancellationEndsAPendingCallWhenChosen() async throws {
    let calls = ControlledCalls<Int, String>("honest", cancellation: .throwsCancellationError)
    let caller = Task { try await calls.call(1) }
    try await calls.waitUntilPending(1)
    caller.cancel()
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(calls.pendingCount == 0)
    // The late result is dropped silently: the caller has already gone.
    let (_, issues) = await collectingIssues { calls.succeed(1, with: "late") }
    #expect(issues.isEmpty)
    #expect(calls.verifyAllCompleted())
  }

  @Test func cancellationBeforeTheCallArrivesEndsItAtOnce() async throws {
    let calls = ControlledCalls<Int, String>("honest", cancellation: .throwsCancellationError)
    let start = Gate("start")
    let caller = Task {
      try? await start.wait()
      return try await calls.call(1)
    }
    caller.cancel()
    start.open()
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(calls.arguments == [1])
    #expect(calls.pendingCount == 0)
  }

  @Test func aCallCompletedBeforeItsCallerSuspendedGetsItsResult() async throws {
    // Completion can land between registration and suspension: waitUntilPending returns as soon
    // as the call is recorded. Whatever the interleaving, the caller gets the result once.
    let calls = ControlledCalls<Int, Int>()
    for round in 1...50 {
      let caller = Task { try await calls.call(round) }
      try await calls.waitUntilPending(round)
      calls.succeed(round, with: round * 2)
      #expect(try await caller.value == round * 2)
    }
  }

  @Test func waitUntilPendingTimesOutNamingTheIDAndWhatArrived() async throws {
    let calls = ControlledCalls<Int, String>("loader")
    let caller = Task { try await calls.call(7) }
    try await calls.waitUntilPending(1)
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await calls.waitUntilPending(2, timeout: .milliseconds(20))
    }
    #expect(error?.awaited == "loader call #2 to arrive")
    #expect(error?.pending == ["arrived: loader call #1 (argument: 7), pending"])
    calls.succeed(1, with: "done")
    _ = try await caller.value

    let empty = ControlledCalls<Int, Int>("idle")
    let nothing = await #expect(throws: WaitTimeoutError.self) {
      try await empty.waitUntilCallCount(1, timeout: .milliseconds(5))
    }
    #expect(nothing?.pending == ["no call of idle has arrived"])
  }

  @Test func waitingForCallZeroIsAReportedMisuse() async {
    let calls = ControlledCalls<Int, Int>("loader")
    let (_, issues) = await collectingIssues {
      await #expect(throws: (any Error).self) { try await calls.waitUntilPending(0) }
    }
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("call ids start at 1") == true)
  }

  @Test func theTeardownCheckReportsAndEndsEveryUncompletedCall() async throws {
    let calls = ControlledCalls<String, String>("loader")
    let first = Task { try await calls.call("five") }
    try await calls.waitUntilPending(1)
    let second = Task { try await calls.call("seven") }
    try await calls.waitUntilPending(2)
    calls.succeed(1, with: "done")

    let line: UInt = #line + 1
    let (passed, issues) = await collectingIssues { calls.verifyAllCompleted() }
    #expect(!passed)
    #expect(issues.count == 1)
    #expect(
      issues.first?.message.hasPrefix("loader call #2 (argument: \"seven\") was never completed") == true)
    #expect(issues.first?.site.line == line)

    #expect(try await first.value == "done")
    let error = await #expect(throws: ControlledCallNotCompletedError.self) { try await second.value }
    #expect(error?.name == "loader")
    #expect(error?.id == 2)
    #expect(error?.argument == "\"seven\"")  // as String(reflecting:) prints it
    // Later calls end at once; checking again finds nothing new.
    await #expect(throws: ControlledCallNotCompletedError.self) { try await calls.call("nine") }
    let (again, moreIssues) = await collectingIssues { calls.verifyAllCompleted() }
    #expect(again && moreIssues.isEmpty)
  }

  @Test func aVerificationScopeChecksEveryInstanceCreatedInside() async throws {
    let caller = Locked<Task<String, any Error>?>(nil)
    let line: UInt = #line + 3
    let (_, issues) = await collectingIssues {
      try? await withControlledCallsVerification {
        let calls = ControlledCalls<String, String>("search")
        let done = ControlledCalls<Int, Int>("finished")
        let finished = Task { try await done.call(1) }
        try await done.waitUntilPending(1)
        done.succeed(1, with: 1)
        _ = try await finished.value
        caller.withLock { $0 = Task { try await calls.call("swift") } }
        try await calls.waitUntilPending(1)
      }
    }
    #expect(issues.count == 1)
    #expect(
      issues.first?.message.hasPrefix("search call #1 (argument: \"swift\") was never completed") == true)
    #expect(issues.first?.site.line == line)
    let call = try #require(caller.value)
    await #expect(throws: ControlledCallNotCompletedError.self) { try await call.value }
  }

  @Test(.verifyingControlledCalls) func theTraitRegistersInstancesCreatedInTheTest() async throws {
    let registry = try #require(TeardownRegistry.current)
    let completed = ControlledCalls<Int, Int>("completed in time")
    let pending = ControlledCalls<Int, Int>("left pending")
    let first = Task { try await completed.call(1) }
    let second = Task { try await pending.call(2) }
    try await completed.waitUntilPending(1)
    try await pending.waitUntilPending(1)
    completed.succeed(1, with: 2)
    #expect(try await first.value == 2)
    // The trait's own check, run now: it holds both instances, and only the pending call is
    // reported (and ended). At the end of the test the trait checks again and finds nothing.
    let (_, issues) = await collectingIssues { await registry.verifyAll() }
    expectOneIssue(issues, containing: "left pending call #1 (argument: 2) was never completed")
    await #expect(throws: ControlledCallNotCompletedError.self) { try await second.value }
  }

  @Test func theTraitReportsCallsTheTestNeverCompleted() async throws {
    let trait = ControlledCallsVerificationTrait.verifyingControlledCalls
    #expect(trait.isRecursive)
    let caller = Locked<Task<Int, any Error>?>(nil)
    let (_, issues) = await collectingIssues {
      try? await trait.provideScope(for: try #require(Test.current), testCase: Test.Case.current) {
        let calls = ControlledCalls<Int, Int>("forgotten")
        caller.withLock { $0 = Task { try await calls.call(42) } }
        try await calls.waitUntilPending(1)
      }
    }
    #expect(
      issues.map { $0.message.hasPrefix("forgotten call #1 (argument: 42) was never completed") } == [true])
    let call = try #require(caller.value)
    await #expect(throws: ControlledCallNotCompletedError.self) { try await call.value }
  }

  @Test(arguments: Interleavings.all(of: [1, 2, 3]))
  func everyCallerGetsItsOwnResultInEveryOrder(order: Interleaving<Int>) async throws {
    let calls = ControlledCalls<Int, Int>("square")
    var callers: [Int: Task<Int, any Error>] = [:]
    for id in 1...3 {
      callers[id] = Task { try await calls.call(id) }
      try await calls.waitUntilPending(id)
    }
    for id in order {
      calls.succeed(id, with: id * id)
      let caller = try #require(callers[id], "order \(order) holds \(id)")
      #expect(try await caller.value == id * id)
    }
  }

  @Test func stateMachineDeliversOutcomesDecidedBeforeSuspension() {
    var state = ControlledCallsState<String, Int, Int, Int>()
    let watching = state.watch(WaiterID(rawValue: 1), target: 2, 100)
    let a = state.register("a")
    let b = state.register("b")
    #expect(watching)
    #expect(a.id == 1 && a.satisfied.isEmpty && a.immediate == nil)
    #expect(b.id == 2 && b.satisfied == [100] && b.immediate == nil)
    let attachedFirst = state.attach(1, 11)
    #expect(attachedFirst == nil)

    let early = state.complete(2, as: .succeeded, with: .success(5))
    #expect(early.found == .completed && early.resume == nil)
    let delivered = state.attach(2, 12)
    #expect(value(delivered) == 5)
    let twice = state.complete(2, as: .failed, with: .failure(Refusal(code: 0)))
    let unknown = state.complete(3, as: .succeeded, with: .success(0))
    #expect(twice.found == .alreadyEnded(.succeeded))
    #expect(unknown.found == .unknown)

    let cancelled = state.cancel(1)
    let cancelledAgain = state.cancel(1)
    let late = state.complete(1, as: .succeeded, with: .success(1))
    #expect(cancelled == 11 && cancelledAgain == nil)
    #expect(late.found == .alreadyEnded(.cancelled) && late.resume == nil)

    let c = state.register("c")
    let oldest = state.oldestPendingID()
    #expect(oldest == 3)
    let endedNow = state.endAll(as: .failed, with: Refusal(code: 9))
    let attachedAfterEnd = state.attach(c.id, 13)
    let d = state.register("d")
    #expect(endedNow.isEmpty)
    #expect(refusal(attachedAfterEnd) == 9)
    #expect(refusal(d.immediate) == 9)
    #expect(state.ending(of: 4) == .failed)
    #expect(state.pendingCount == 0)
    #expect(state.arguments == ["a", "b", "c", "d"])
  }

  @Test func stateMachineTearDownEndsPendingCallsAndLaterOnes() {
    var state = ControlledCallsState<Int, Int, Int, Int>()
    _ = state.register(7)
    _ = state.register(8)
    let attached = state.attach(1, 11)
    let found = state.tearDown { Refusal(code: $0.argument) }
    let attachedAfter = state.attach(2, 12)
    let later = state.register(9)
    #expect(attached == nil)
    #expect(found.map(\.call.id) == [1, 2])
    #expect(found.first?.resume?.waiter == 11)
    #expect(found.last.map { $0.resume == nil } == true)
    #expect(refusal(attachedAfter) == 8)
    #expect(refusal(later.immediate) == 9)
    #expect(state.ending(of: 3) == .tornDown)
  }
}

private func value(_ outcome: Result<Int, any Error>?) -> Int? {
  guard case .success(let value)? = outcome else { return nil }
  return value
}

private func refusal(_ outcome: Result<Int, any Error>?) -> Int? {
  guard case .failure(let error as Refusal)? = outcome else { return nil }
  return error.code
}

final class ControlledCallsXCTests: XCTestCase {
  func testOutOfOrderCompletion() async throws {
    let calls = ControlledCalls<Int, String>("loader")
    addTeardownCheck(for: calls)
    let first = Task { try await calls.call(1) }
    try await calls.waitUntilPending(1)
    let second = Task { try await calls.call(2) }
    try await calls.waitUntilPending(2)
    calls.succeed(2, with: "two")
    let secondValue = try await second.value
    XCTAssertEqual(secondValue, "two")
    calls.fail(1, with: Refusal(code: 1))
    do {
      _ = try await first.value
      XCTFail("expected the failure")
    } catch let error as Refusal {
      XCTAssertEqual(error.code, 1)
    }
    XCTAssertEqual(calls.arguments, [1, 2])
  }

  func testMisuseAndTeardownAreReported() async throws {
    let calls = ControlledCalls<Int, Int>("loader")
    let caller = Task { try await calls.call(3) }
    try await calls.waitUntilPending(1)
    let (_, issues) = await collectingIssues {
      calls.succeed(2, with: 0)
      calls.verifyAllCompleted()
    }
    expectIssues(
      issues,
      containing: [
        "loader: cannot succeed call #2: no such call has arrived",
        "loader call #1 (argument: 3) was never completed",
      ])
    do {
      _ = try await caller.value
      XCTFail("the teardown check must end the call")
    } catch let error as ControlledCallNotCompletedError {
      XCTAssertEqual(error.id, 1)
      XCTAssertEqual(error.description, "loader call #1 (argument: 3) was never completed")
    }
  }

  func testCancellationPolicy() async throws {
    let calls = ControlledCalls<Int, Int>("honest", cancellation: .throwsCancellationError)
    let caller = Task { try await calls.call(1) }
    try await calls.waitUntilPending(1)
    caller.cancel()
    let result = await caller.result
    XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError) }
  }

  func testVerificationScope() async throws {
    try await withControlledCallsVerification {
      let calls = ControlledCalls<Void, Int>("refresh")
      let caller = Task { try await calls.call() }
      try await calls.waitUntilPending(1)
      calls.succeedOldest(with: 1)
      let value = try await caller.value
      XCTAssertEqual(value, 1)
    }
  }
}

/// Proves that `addTeardownCheck(for:)` fails an XCTest test that leaves a call unfinished.
final class ControlledCallsTeardownCheckXCTests: FailureCapturingTestCase {

  func testAnUnfinishedCallIsReportedByIDAndArgumentAtTheCheckLine() async throws {
    let calls = ControlledCalls<Int, String>("loader")
    let caller = Task { try await calls.call(7) }
    let captured = self.captured
    let checkLine = Locked(0)
    // Teardown blocks run last-registered first: this one runs after the check below.
    addTeardownBlock {
      let failures = captured.stop()
      XCTAssertEqual(failures.count, 1, "\(failures)")
      XCTAssertTrue(
        failures.first?.contains("loader call #1 (argument: 7) was never completed") == true, "\(failures)")
      XCTAssertTrue(
        failures.first?.hasSuffix("@ControlledCallsTests.swift:\(checkLine.value)") == true, "\(failures)")
      if calls.pendingCount > 0 {
        XCTFail("the teardown check left call #1 pending")
        calls.failAll(CancellationError())  // so that the wait below cannot hang
      }
      do {
        _ = try await caller.value
        XCTFail("the teardown check must end the call")
      } catch let error as ControlledCallNotCompletedError {
        XCTAssertEqual(error.name, "loader")
        XCTAssertEqual(error.id, 1)
        XCTAssertEqual(error.argument, "7")
      }
    }
    checkLine.withLock { $0 = #line + 1 }
    addTeardownCheck(for: calls)
    try await calls.waitUntilPending(1)
    captured.startCapturing()
    // The test ends with call #1 still pending.
  }
}
