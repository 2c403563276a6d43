import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct KeyedGatesTests {
  @Test func eachKeyReleasesOnlyItsOwnWaiters() async throws {
    let gates = KeyedGates<String>("search")
    let tasks = TestTaskFactory()
    let passed = EventRecorder<String>("passed")
    for query in ["sw", "swift", "sw"] {
      tasks.task {
        try? await gates.wait(for: query)
        passed.record(query)
      }
    }
    try await gates.waitForRequests(3)
    #expect(gates.waiterCount == 3)
    #expect(gates.waiterCount(for: "sw") == 2)
    #expect(gates.requestedKeys.sorted() == ["sw", "sw", "swift"])

    gates.open("swift")
    try await passed.waitForCount(1)
    #expect(passed.values == ["swift"])
    #expect(gates.waiterCount == 2)
    gates.open("sw")
    try await tasks.waitUntilIdle()
    #expect(passed.values.sorted() == ["sw", "sw", "swift"])
    #expect(gates.waiterCount == 0)
  }

  @Test func aKeyOpenedBeforeAnyoneWaitsLetsRequestsThrough() async throws {
    let gates = KeyedGates<Int>()
    gates.open(7)
    gates.open(7)  // opening twice does nothing
    try await gates.wait(for: 7)
    try await gates.wait(for: 7)
    #expect(gates.isOpen(7))
    #expect(!gates.isOpen(8))
    #expect(gates.requestedKeys == [7, 7])
  }

  @Test func theLogKeepsTheOrderOfRequests() async throws {
    let gates = KeyedGates<String>("search")
    let tasks = TestTaskFactory()
    for query in ["s", "sw", "swi"] {
      tasks.task { try? await gates.wait(for: query) }
      try await gates.waitForRequest(of: query)
    }
    #expect(gates.requestedKeys == ["s", "sw", "swi"])
    for query in ["swi", "s", "sw"] { gates.open(query) }
    try await tasks.waitUntilIdle()
    #expect(gates.requestedKeys == ["s", "sw", "swi"])  // opening keys does not reorder the log
    #expect(gates.waiterCount == 0)
  }

  @Test func theDescriptionNamesTheGatesTheRequestsAndWhoWaitsAtWhichKey() async throws {
    let gates = KeyedGates<String>("search")
    let tasks = TestTaskFactory()
    for query in ["sw", "swift", "sw"] { tasks.task { try? await gates.wait(for: query) } }
    try await gates.waitForRequests(3)
    let waiting = gates.description
    #expect(waiting.contains("\"search\""))
    #expect(waiting.contains("3 requested"))
    #expect(waiting.contains("\"sw\" ×2"))
    #expect(waiting.contains("\"swift\" ×1"))
    gates.open("sw")
    gates.open("swift")
    try await tasks.waitUntilIdle()
    let idle = gates.description
    #expect(idle.contains("3 requested"))
    #expect(!idle.contains("\"sw\"") && !idle.contains("\"swift\""))
    #expect(idle.contains("nobody waiting"))
  }

  @Test func aCancelledWaiterIsRemovedAndThrows() async throws {
    let gates = KeyedGates<String>()
    let waiter = Task { try await gates.wait(for: "q") }
    try await gates.waitForRequest(of: "q")
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(gates.waiterCount == 0)
    gates.open("q")  // nothing left to resume: no double resume
  }

  @Test func waitsTimeOutNamingTheKey() async throws {
    let gates = KeyedGates<String>("search")
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await gates.wait(for: "swift", timeout: .milliseconds(20))
    }
    #expect(error?.awaited == "key \"swift\" of KeyedGates(\"search\") to open")
    let requests = await #expect(throws: WaitTimeoutError.self) {
      try await gates.waitForRequest(of: "sw", timeout: .milliseconds(5))
    }
    #expect(requests?.pending == ["requested so far: \"swift\""])
    #expect(gates.waiterCount == 0)
  }

  @Test func stateMachineOpensPerKeyInArrivalOrder() {
    var state = KeyedGatesState<String, Int>()
    let watchingCount = state.watch(WaiterID(rawValue: 10), target: .count(2), 100)
    let watchingKey = state.watch(WaiterID(rawValue: 11), target: .key("b"), 110)
    let second = state.arrive(WaiterID(rawValue: 2), key: "a", 20)
    let first = state.arrive(WaiterID(rawValue: 1), key: "a", 10)
    let other = state.arrive(WaiterID(rawValue: 3), key: "b", 30)
    let departed = state.depart(WaiterID(rawValue: 3), key: "b")
    let openedA = state.open("a")
    let openedAgain = state.open("a")
    let openedEarly = state.open("c")
    let passing = state.arrive(WaiterID(rawValue: 4), key: "c", 40)
    #expect(watchingCount && watchingKey)
    #expect(second.suspends && second.satisfied.isEmpty)
    #expect(first.suspends && first.satisfied == [100])
    #expect(other.suspends && other.satisfied == [110])
    #expect(departed == 30)
    #expect(openedA == [10, 20])
    #expect(openedAgain.isEmpty && openedEarly.isEmpty)
    #expect(!passing.suspends)
    #expect(state.requestedKeys == ["a", "a", "b", "c"])
    #expect(state.waiterCount == 0)
  }
}

final class KeyedGatesXCTests: XCTestCase {
  func testOpeningAKeyReleasesItsWaiter() async throws {
    let gates = KeyedGates<String>("search")
    let tasks = TestTaskFactory()
    tasks.task { try? await gates.wait(for: "swift") }
    try await gates.waitForRequest(of: "swift")
    XCTAssertEqual(gates.waiterCount(for: "swift"), 1)
    gates.open("swift")
    try await tasks.waitUntilIdle()
    XCTAssertEqual(gates.waiterCount, 0)
    XCTAssertEqual(gates.requestedKeys, ["swift"])
  }

  func testTimeoutNamesTheKey() async {
    let gates = KeyedGates<Int>("records")
    do {
      try await gates.wait(for: 3, timeout: .milliseconds(10))
      XCTFail("expected a timeout")
    } catch let error as WaitTimeoutError {
      XCTAssertTrue(error.description.contains("key 3 of KeyedGates(\"records\")"), error.description)
    } catch {
      XCTFail("unexpected \(error)")
    }
  }
}
