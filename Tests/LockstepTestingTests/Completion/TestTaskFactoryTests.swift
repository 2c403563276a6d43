import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@MainActor
final class Box {
  var values: [String] = []
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TestTaskFactoryTests {
  @MainActor @Test func waitsForNestedTasksOnTheMainActor() async throws {
    let tasks = TestTaskFactory()
    let box = Box()
    tasks.task(name: "outer") {
      MainActor.assertIsolated()
      box.values.append("outer")
      tasks.task(name: "inner") {
        MainActor.assertIsolated()
        await Task.detached { () }.value  // a real suspension before finishing
        box.values.append("inner")
        tasks.task(name: "innermost") { box.values.append("innermost") }
      }
    }
    try await tasks.waitUntilIdle()
    #expect(box.values == ["outer", "inner", "innermost"])
    #expect(tasks.createdCount == 3)
    #expect(tasks.unfinishedCount == 0)
  }

  @Test func waitsForManyConcurrentTasks() async throws {
    let tasks = TestTaskFactory()
    let done = EventCounter("task done")
    for index in 0..<500 {
      tasks.task {
        if index % 10 == 0 { tasks.task { done.record() } }
        done.record()
      }
    }
    try await tasks.waitUntilIdle()
    #expect(done.count == 550)
  }

  @Test func returnsAtOnceWhenNothingIsRunning() async throws {
    // A zero timeout fails any wait that suspends: nothing would ever resume it here.
    try await TestTaskFactory().waitUntilIdle(timeout: .zero)
    let tasks = TestTaskFactory()
    await tasks.task(name: "done") {}.value  // its handle has a value once the factory saw it finish
    #expect(tasks.unfinishedCount == 0)
    try await tasks.waitUntilIdle(timeout: .zero)
  }

  @Test func aTaskThatNeverFinishesIsNamedWithItsCreationSite() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate("never opened")
    let finished = tasks.task(name: "finishes") {}
    let creationLine = #line + 1
    tasks.task(name: "stuck") { try? await gate.wait(timeout: .seconds(60)) }
    // Only the stuck task is left; the timed wait below then fails however loaded the machine is.
    await finished.value
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await tasks.waitUntilIdle(timeout: .milliseconds(50))
    }
    let pending = try #require(error?.pending)
    #expect(pending.count == 1)
    let stuck = try #require(pending.first)
    #expect(stuck.contains("#2"))
    #expect(stuck.contains("\"stuck\""))
    #expect(stuck.contains("LockstepTestingTests/TestTaskFactoryTests.swift:\(creationLine):"))
    #expect(error?.awaited == "every task of the TestTaskFactory to finish")
    #expect(error?.timeout == .milliseconds(50))
    tasks.cancelAll()
    try await tasks.waitUntilIdle()
  }

  @Test func unfinishedTasksListsWhatIsStillRunningOldestFirst() async throws {
    let tasks = TestTaskFactory()
    let first = Gate("first")
    let second = Gate("second")
    await tasks.task(name: "finished early") {}.value
    let heldLine = #line + 1
    let held = tasks.task(name: "held") { try? await first.wait() }
    let unnamedLine = #line + 1
    tasks.task { try? await second.wait() }
    #expect(tasks.unfinishedTasks.count == 2)
    #expect(tasks.unfinishedTasks.first?.contains("#2") == true)
    #expect(tasks.unfinishedTasks.first?.contains("\"held\"") == true)
    #expect(tasks.unfinishedTasks.first?.contains("TestTaskFactoryTests.swift:\(heldLine):") == true)
    #expect(tasks.unfinishedTasks.last?.contains("#3") == true)
    #expect(tasks.unfinishedTasks.last?.contains("unnamed") == true)
    #expect(tasks.unfinishedTasks.last?.contains("TestTaskFactoryTests.swift:\(unnamedLine):") == true)

    first.open()
    await held.value
    #expect(tasks.unfinishedTasks.count == 1)
    #expect(tasks.unfinishedTasks.first?.contains("#3") == true)
    second.open()
    try await tasks.waitUntilIdle()
    #expect(tasks.unfinishedTasks.isEmpty)
  }

  @Test(arguments: [TaskPriority.background, .high])
  func theTaskGetsTheGivenPriority(_ priority: TaskPriority) async throws {
    let tasks = TestTaskFactory()
    let plain = tasks.task(priority: priority) { Task.basePriority }
    let throwing = tasks.task(priority: priority) { () async throws -> TaskPriority? in Task.basePriority }
    #expect(await plain.value == priority)
    #expect(try await throwing.value == priority)
  }

  @MainActor @Test(arguments: [TaskPriority.background, .high])
  func aMainActorTaskGetsTheGivenPriority(_ priority: TaskPriority) async throws {
    let tasks = TestTaskFactory()
    let plain = tasks.task(priority: priority) {
      MainActor.assertIsolated()
      return Task.basePriority
    }
    let throwing = tasks.task(priority: priority) { () async throws -> TaskPriority? in
      MainActor.assertIsolated()
      return Task.basePriority
    }
    #expect(await plain.value == priority)
    #expect(try await throwing.value == priority)
  }

  @Test func cancelAllCancelsUnfinishedTasks() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate()
    let outcomes = EventRecorder<Bool>("cancelled")
    for _ in 0..<3 {
      tasks.task {
        do {
          try await gate.wait()
          outcomes.record(false)
        } catch {
          outcomes.record(error is CancellationError)
        }
      }
    }
    try await gate.waitForArrivals(3)
    tasks.cancelAll()
    try await tasks.waitUntilIdle()
    #expect(outcomes.values == [true, true, true])
  }

  @Test func throwingTasksAreTrackedToo() async throws {
    struct Boom: Error {}
    let tasks = TestTaskFactory()
    let handle = tasks.task(name: "fails") { () async throws -> Int in throw Boom() }
    try await tasks.waitUntilIdle()
    await #expect(throws: Boom.self) { try await handle.value }
    #expect(tasks.unfinishedCount == 0)
  }

  @Test func cancellingAWaitThatIsSuspendedThrowsCancellation() async throws {
    try await withDeterministicScheduling {
      let tasks = TestTaskFactory()
      let gate = Gate("held")
      tasks.task { try? await gate.wait() }
      let waiter = Task { try await tasks.waitUntilIdle() }
      // A sleep in the run's virtual time: it ends only once no job is ready, so every other
      // task has run until it suspended — the waiter inside `waitUntilIdle`.
      try await Task.sleep(for: .seconds(1))  // virtual time
      waiter.cancel()
      await #expect(throws: CancellationError.self) { try await waiter.value }
      #expect(tasks.unfinishedCount == 1)
      gate.open()
      try await tasks.waitUntilIdle()
    }
  }

  @Test func aWaitInACancelledTaskThrowsCancellation() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate()
    tasks.task { try? await gate.wait() }
    let waiter = Task {
      withUnsafeCurrentTask { $0?.cancel() }  // cancelled before it waits
      try await tasks.waitUntilIdle()
    }
    await #expect(throws: CancellationError.self) { try await waiter.value }
    gate.open()
    try await tasks.waitUntilIdle()
  }

  @Test func registryStateMachine() {
    var registry = TaskRegistry<String, Int>()
    let first = registry.register(name: "a", site: CallSite())
    let second = registry.register(name: nil, site: CallSite())
    let waiting = registry.arriveIdleWaiter(WaiterID(rawValue: 1), "waiter")
    let cancelNow = registry.attach(10, to: first)
    let handles = registry.requestCancelAll()
    let lateCancel = registry.attach(20, to: second)
    let afterFirst = registry.finish(first.slot)
    let afterSecond = registry.finish(second.slot)
    #expect(waiting)
    #expect(!cancelNow)
    #expect(handles == [10])
    #expect(lateCancel)  // cancelAll ran between registration and attaching the handle
    #expect(afterFirst.isEmpty)
    #expect(afterSecond == ["waiter"])
    #expect(registry.createdCount == 2)
  }

  @Test func aTaskThatFinishedBeforeItsHandleWasStoredLeavesTheNextTaskInItsSlotAlone() {
    var registry = TaskRegistry<String, Int>()
    let early = registry.register(name: "finishes at once", site: CallSite())
    _ = registry.finish(early.slot)
    let next = registry.register(name: "reuses the slot", site: CallSite())
    #expect(next.slot == early.slot)
    let attach = registry.attach(20, to: next)
    let lateAttach = registry.attach(10, to: early)  // too late: the slot holds the next task now
    let cancelled = registry.requestCancelAll()
    #expect(!lateAttach && !attach)
    #expect(cancelled == [20])
    #expect(registry.unfinishedDescriptions.count == 1)
    #expect(registry.unfinishedDescriptions.first?.hasPrefix("task #2 \"reuses the slot\"") == true)
  }

  @Test func finishedTasksHandlesAreKeptUntilTakenInABatch() {
    var registry = TaskRegistry<String, Int>()
    let tickets = (1...3).map { registry.register(name: "\($0)", site: CallSite()) }
    for (index, ticket) in tickets.enumerated() { _ = registry.attach(index + 1, to: ticket) }
    _ = registry.finish(tickets[0].slot)
    _ = registry.finish(tickets[2].slot)
    let tooFew = registry.takeRetired(ifAtLeast: 3)
    let batch = registry.takeRetired(ifAtLeast: 2)
    let afterwards = registry.takeRetired(ifAtLeast: 0)
    let cancelled = registry.requestCancelAll()
    #expect(tooFew.isEmpty)
    #expect(batch == [1, 3])
    #expect(afterwards.isEmpty)
    #expect(cancelled == [2])  // a finished task is never cancelled
  }
}

final class TestTaskFactoryXCTests: XCTestCase {
  @MainActor func testWaitUntilIdleWaitsForNestedTasks() async throws {
    let tasks = TestTaskFactory()
    let box = Box()
    tasks.task { tasks.task { box.values.append("nested") } }
    try await tasks.waitUntilIdle()
    XCTAssertEqual(box.values, ["nested"])
  }

  func testTimeoutListsTheUnfinishedTask() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate()
    tasks.task(name: "poll") { try? await gate.wait() }
    do {
      try await tasks.waitUntilIdle(timeout: .milliseconds(20))
      XCTFail("expected a timeout")
    } catch let error as WaitTimeoutError {
      XCTAssertEqual(error.pending.count, 1)
      XCTAssertTrue(error.pending.first?.contains("\"poll\"") == true, error.description)
    }
    gate.open()
    try await tasks.waitUntilIdle()
  }
}
