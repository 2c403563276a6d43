import LockstepExamples
import LockstepTesting

struct DemoProfileService: ProfileService {
  var gate: Gate?

  func fetchName() async throws -> String {
    // Like a real network stack once the request is sent, it ignores the caller's cancellation.
    if let gate { try await Task { try await gate.wait() }.value }
    return "Blob"
  }
}

struct DemoValidator: DraftValidator {
  let barrier: Barrier

  func validate(_ id: Int) async throws { try await barrier.arriveAndWait() }
}

final class DemoReadingSource: ReadingSource {
  let gate = Gate("fourth reading")
  private let served = EventCounter("readings")

  func nextReading() async throws -> Int {
    served.record()
    if served.count > 3 { try await gate.wait() }
    return served.count
  }
}

struct DemoBookLoader: BookLoader {
  let calls = ControlledCalls<Int, Book>("book loader")

  func load(id: Int) async throws -> Book { try await calls.call(id) }
}

/// A search backend that holds each query until the test opens its gate. The wait runs in a task
/// of its own, so that, like a request already sent, it ignores the caller's cancellation.
struct DemoSearchBackend: SearchBackend {
  let gates = KeyedGates<String>("search responses")

  func search(_ query: String) async throws -> [String] {
    let gates = self.gates
    try await Task { try await gates.wait(for: query) }.value
    return ["results for \(query)"]
  }
}

/// A task factory that hands every task to a `TestTaskFactory` and keeps, by name, a way to await
/// each one: the signal that a particular task's work — a search's answer applied or dropped — is
/// done, while other tasks of the factory are still held.
final class AwaitableTaskFactory: TaskFactory {
  let base = TestTaskFactory()
  private let created = EventRecorder<(name: String?, finished: @Sendable () async -> Void)>(
    "created tasks")

  /// The tasks were created, so their names are known; a name no task had is a demo bug.
  struct NoSuchTask: Error, CustomStringConvertible {
    let name: String
    var description: String { "no task named \(name) was created" }
  }

  /// Waits until the newest task named `name` has finished.
  func waitForTask(named name: String) async throws {
    guard let task = created.values.last(where: { $0.name == name }) else {
      throw NoSuchTask(name: name)
    }
    await task.finished()
  }

  func makeTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    let task = base.makeTask(name: name, priority: priority, site: site, operation: operation)
    created.record((name, { _ = await task.value }))
    return task
  }

  func makeThrowingTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    let task = base.makeThrowingTask(name: name, priority: priority, site: site, operation: operation)
    created.record((name, { _ = await task.result }))
    return task
  }
}
