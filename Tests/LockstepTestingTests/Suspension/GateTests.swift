import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct GateTests {
  @Test func waitersSuspendUntilOpened() async throws {
    let gate = Gate("save")
    let tasks = TestTaskFactory()
    let passed = EventCounter("passed the gate")
    #expect(gate.arrivalCount == 0)
    for _ in 0..<3 {
      tasks.task {
        try? await gate.wait()
        passed.record()
      }
    }
    try await gate.waitForArrivals(3)
    #expect(gate.waiterCount == 3)
    #expect(gate.arrivalCount == 3)
    #expect(passed.count == 0)
    gate.open()
    try await tasks.waitUntilIdle()
    #expect(passed.count == 3)
    #expect(gate.waiterCount == 0)
    // Arrivals count every wait, those that passed straight through too.
    try await gate.wait()
    #expect(gate.arrivalCount == 4)
  }

  @Test func aWaiterAfterOpeningPassesStraightThrough() async throws {
    let gate = Gate()
    gate.open()
    try await gate.wait()  // a waiter that suspended would fail here, at the wait's bound
    #expect(gate.arrivalCount == 1)
    #expect(gate.waiterCount == 0)
  }

  @Test func openingAnOpenGateDoesNothing() async throws {
    let gate = Gate()
    let passed = EventCounter("passed the gate")
    let waiter = Task {
      try await gate.wait()
      passed.record()
    }
    try await gate.waitForArrivals(1)
    let (_, issues) = await collectingIssues {
      gate.open()
      gate.open()
    }
    try await waiter.value
    #expect(issues.isEmpty)
    #expect(passed.count == 1)
    // Still open: a later waiter passes straight through.
    #expect(gate.isOpen)
    try await gate.wait(timeout: .seconds(1))
    // The state machine resumes the waiter once: the second opening has nobody to resume.
    var state = GateState<String>()
    _ = state.arrive(WaiterID.next(), "waiter")
    #expect(state.open() == ["waiter"])
    #expect(state.open().isEmpty)
    #expect(state.isOpen)
  }

  @Test func aCancelledWaiterIsRemovedAndThrows() async throws {
    let gate = Gate()
    let waiter = Task { try await gate.wait() }
    try await gate.waitForArrivals(1)
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(gate.waiterCount == 0)
    gate.open()  // nothing left to resume: no double resume
  }

  @Test func cancellationBeforeArrivingThrowsAtOnce() async throws {
    let gate = Gate()
    let start = Gate("start")
    let waiter = Task {
      try? await start.wait()
      try await gate.wait()
    }
    waiter.cancel()
    start.open()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    // It reached the gate (the error is the gate's) and left no waiter behind.
    #expect(gate.arrivalCount == 1)
    #expect(gate.waiterCount == 0)
  }

  @Test func aGateNobodyOpensTimesOutNamingTheGate() async throws {
    let gate = Gate("validation")
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await gate.wait(timeout: .milliseconds(20))
    }
    #expect(error?.awaited == "Gate(\"validation\") to open")
    #expect(error?.site.fileID.description == "LockstepTestingTests/GateTests.swift")
    #expect(gate.waiterCount == 0)
  }

  @Test func theDescriptionNamesTheGateWhetherItIsOpenAndWhoWaits() async throws {
    let gate = Gate("validation")
    let tasks = TestTaskFactory()
    #expect(gate.description.contains("\"validation\""))
    #expect(gate.description.contains("closed"))
    #expect(gate.description.contains("0 waiting"))
    for _ in 0..<2 { tasks.task { try? await gate.wait() } }
    try await gate.waitForArrivals(2)
    #expect(gate.description.contains("closed"))
    #expect(gate.description.contains("2 waiting"))
    gate.open()
    try await tasks.waitUntilIdle()
    #expect(gate.description.contains("\"validation\""))
    #expect(gate.description.contains("open") && !gate.description.contains("closed"))
    #expect(gate.description.contains("0 waiting"))
  }

  @Test func stateMachineOpensInArrivalOrder() {
    var state = GateState<Int>()
    let second = state.arrive(WaiterID(rawValue: 2), 20)
    let first = state.arrive(WaiterID(rawValue: 1), 10)
    let watching = state.watchArrivals(WaiterID(rawValue: 3), target: 3, 30)
    let departed = state.departPasser(WaiterID(rawValue: 9))
    let opened = state.open()
    let openedAgain = state.open()
    #expect(second.suspends && first.suspends && watching)
    #expect(departed == nil)
    #expect(opened == [10, 20])
    #expect(openedAgain.isEmpty)
    let third = state.arrive(WaiterID(rawValue: 4), 40)
    #expect(!third.suspends)
    #expect(third.satisfied == [30])
  }
}

final class GateXCTests: XCTestCase {
  func testOpeningReleasesAWaiter() async throws {
    let gate = Gate("xctest")
    let tasks = TestTaskFactory()
    tasks.task { try? await gate.wait() }
    try await gate.waitForArrivals(1)
    XCTAssertEqual(gate.waiterCount, 1)
    gate.open()
    try await tasks.waitUntilIdle()
    XCTAssertEqual(gate.waiterCount, 0)
  }

  func testTimeoutErrorNamesTheGate() async {
    let gate = Gate("never opened")
    do {
      try await gate.wait(timeout: .milliseconds(10))
      XCTFail("expected a timeout")
    } catch let error as WaitTimeoutError {
      XCTAssertTrue(error.description.contains("Gate(\"never opened\")"), error.description)
    } catch {
      XCTFail("unexpected \(error)")
    }
  }
}
