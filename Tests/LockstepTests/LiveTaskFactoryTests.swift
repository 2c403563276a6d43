import Lockstep
import LockstepTesting
import Testing
import XCTest

@MainActor
final class Counter {
  var value = 0
}

@Suite(.timeLimit(.minutes(1)))
struct LiveTaskFactoryTests {
  @MainActor @Test func aTaskCreatedOnTheMainActorRunsOnTheMainActor() async {
    let counter = Counter()
    let factory: any TaskFactory = .live
    let task = factory.task(name: "bump") {
      MainActor.assertIsolated()
      counter.value += 1
      return counter.value
    }
    #expect(await task.value == 1)
  }

  @Test func aThrowingTaskRethrowsItsError() async {
    struct Boom: Error {}
    let task = LiveTaskFactory().task { () async throws -> Int in throw Boom() }
    await #expect(throws: Boom.self) { try await task.value }
  }

  @Test func theReturnedHandleCancelsTheTask() async {
    let gate = Gate("never opened")
    let task = LiveTaskFactory().task { () async -> Bool in
      do {
        try await gate.wait()
        return false
      } catch {
        return error is CancellationError
      }
    }
    try? await gate.waitForArrivals(1)
    task.cancel()
    #expect(await task.value)
  }

  @Test func taskLocalsAreInherited() async {
    let value = await Self.$local.withValue(7) {
      await LiveTaskFactory().task { Self.local }.value
    }
    #expect(value == 7)
  }

  @Test(arguments: [TaskPriority.background, .high])
  func theTaskGetsTheGivenPriority(_ priority: TaskPriority) async throws {
    let factory: any TaskFactory = .live
    let plain = factory.task(priority: priority) { Task.basePriority }
    let throwing = factory.task(priority: priority) { () async throws -> TaskPriority? in
      Task.basePriority
    }
    #expect(await plain.value == priority)
    #expect(try await throwing.value == priority)
  }

  @Test func withoutAPriorityTheTaskInheritsItsCreatorsPriority() async {
    // Created from a high-priority task: waiting for it from here can only raise a priority.
    let inherited = await Task(priority: .high) {
      await LiveTaskFactory().task { Task.basePriority }.value
    }.value
    #expect(inherited == .high)
  }

  @TaskLocal static var local = 0
}

final class LiveTaskFactoryXCTests: XCTestCase {
  @MainActor func testMainActorIsolationIsInherited() async {
    let counter = Counter()
    await LiveTaskFactory().task { counter.value = 42 }.value
    XCTAssertEqual(counter.value, 42)
  }
}
