import Testing
import XCTest

@testable import LockstepTesting

@MainActor
final class Box {
  var values: [String] = []
}

@Suite(.timeLimit(.minutes(1)))
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

  @Test func returnsAtOnceWhenNothingWasCreated() async throws {
    try await TestTaskFactory().waitUntilIdle()
  }

  @Test func aTaskThatNeverFinishesIsNamedWithItsCreationSite() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate("never opened")
    tasks.task(name: "finishes") {}
    let creationLine = #line + 1
    tasks.task(name: "stuck") { try? await gate.wait(timeout: .seconds(60)) }
    // Only the stuck task is left; the timed wait below then fails however loaded the machine is.
    try await waitUntil("the other task finished") { tasks.unfinishedCount == 1 }
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await tasks.waitUntilIdle(timeout: .milliseconds(50))
    }
    let pending = try #require(error?.pending)
    #expect(pending.count == 1)
    #expect(pending[0].contains("\"stuck\""))
    #expect(pending[0].contains("LockstepTestingTests/TestTaskFactoryTests.swift:\(creationLine):"))
    #expect(error?.description.contains("every task of the TestTaskFactory") == true)
    tasks.cancelAll()
    try await tasks.waitUntilIdle()
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

  @Test func aCancelledWaitThrowsCancellation() async throws {
    let tasks = TestTaskFactory()
    let gate = Gate()
    tasks.task { try? await gate.wait() }
    let waiter = Task { try await tasks.waitUntilIdle() }
    waiter.cancel()
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
    let afterFirst = registry.finish(first)
    let afterSecond = registry.finish(second)
    #expect(waiting)
    #expect(!cancelNow)
    #expect(handles == [10])
    #expect(lateCancel)  // cancelAll ran between registration and attaching the handle
    #expect(afterFirst.isEmpty)
    #expect(afterSecond == ["waiter"])
    #expect(registry.createdCount == 2)
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
      XCTAssertTrue(error.pending[0].contains("\"poll\""), error.description)
    }
    gate.open()
    try await tasks.waitUntilIdle()
  }
}
