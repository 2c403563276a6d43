/// A ``TaskFactory`` for tests: it records every task the code under test creates and lets the
/// test wait until all of them have finished, including tasks created by those tasks.
///
/// ```swift
/// @MainActor @Test(.timeLimit(.minutes(1)))
/// func loadShowsTheName() async throws {
///   let tasks = TestTaskFactory()
///   let model = ProfileModel(service: StubService(name: "Blob"), tasks: tasks)
///
///   model.load()                       // starts a task on its own
///   try await tasks.waitUntilIdle()    // no sleep, no yield: waits exactly until it is done
///
///   #expect(model.name == "Blob")
/// }
/// ```
///
/// If a task never finishes, ``waitUntilIdle(timeout:fileID:filePath:line:column:)`` throws a
/// ``WaitTimeoutError`` naming each unfinished task and the line that created it. Tasks run for
/// real, on the executors they would use in production; see <doc:WhenWorkFinishes>.
public final class TestTaskFactory: TaskFactory, Sendable {
  typealias Registry = TaskRegistry<Waiter<Void>, TaskHandle>
  private let registry = Locked(Registry())

  /// Creates a factory with no tasks.
  public init() {}

  /// How many tasks the factory has created so far.
  public var createdCount: Int { registry.withLock { $0.createdCount } }

  /// How many of the tasks the factory created have not finished yet.
  public var unfinishedCount: Int { registry.withLock { $0.unfinishedCount } }

  /// The unfinished tasks, oldest first, each as `task #N "name", created at File.swift:line:col`.
  public var unfinishedTasks: [String] { registry.withLock { $0.unfinishedDescriptions } }

  /// Creates the task and records it. Production code calls
  /// ``TaskFactory/task(name:priority:fileID:filePath:line:column:operation:)->Task<Success,Never>``
  /// instead.
  public func makeTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    // `operation` was passed as `sending`: this function owns it and hands it to one task only.
    nonisolated(unsafe) let operation = operation
    let onMainActor = isMainActor(operation.isolation)
    let registry = self.registry
    let ticket = register(name: name, site: site)
    let task: Task<Success, Never>
    if onMainActor {
      task = Task.named(name, priority: priority) { @MainActor in
        defer { finish(ticket, in: registry) }
        return await operation()
      }
    } else {
      task = Task.named(name, priority: priority) {
        defer { finish(ticket, in: registry) }
        return await operation()
      }
    }
    attach(TaskHandle(task), to: ticket, name: name, site: site)
    return task
  }

  /// Creates the throwing task and records it. Production code calls
  /// ``TaskFactory/task(name:priority:fileID:filePath:line:column:operation:)->Task<Success,Error>``
  /// instead.
  public func makeThrowingTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    nonisolated(unsafe) let operation = operation
    let onMainActor = isMainActor(operation.isolation)
    let registry = self.registry
    let ticket = register(name: name, site: site)
    let task: Task<Success, any Error>
    if onMainActor {
      task = Task.named(name, priority: priority) { @MainActor in
        defer { finish(ticket, in: registry) }
        return try await operation()
      }
    } else {
      task = Task.named(name, priority: priority) {
        defer { finish(ticket, in: registry) }
        return try await operation()
      }
    }
    attach(TaskHandle(task), to: ticket, name: name, site: site)
    return task
  }

  /// Cancels every task created so far that has not finished. Tasks created later are not
  /// affected.
  public func cancelAll() {
    let handles = registry.withLock { $0.requestCancelAll() }
    for handle in handles { handle.cancel() }
  }

  /// Waits until every task this factory created has finished — including tasks created while
  /// waiting, such as a task started by a task.
  ///
  /// It returns as soon as the last task finishes: it never polls and never sleeps, so a passing
  /// test never waits longer than its work takes.
  ///
  /// - Parameters:
  ///   - timeout: A failure bound, not a delay. When it elapses the wait throws a
  ///     ``WaitTimeoutError`` listing each unfinished task by name and creation site.
  /// - Throws: ``WaitTimeoutError``, or `CancellationError` when the waiting task is cancelled.
  nonisolated(nonsending) public func waitUntilIdle(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await registry.wait(
      for: "every task of the TestTaskFactory to finish", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      arrive: { ($0.arriveIdleWaiter($1, $2), []) },
      depart: { $0.departIdleWaiter($1) },
      pending: { $0.unfinishedDescriptions })
    _ = registry.withLock { $0.takeRetired(ifAtLeast: 0) }
  }

  /// Records a new task; drops a batch of finished tasks' handles if enough have piled up (see
  /// ``TaskRegistry/takeRetired(ifAtLeast:)``), after unlocking.
  private func register(name: String?, site: CallSite) -> Registry.Ticket {
    let (ticket, retired) = registry.withLock {
      ($0.register(name: name, site: site), $0.takeRetired(ifAtLeast: 64))
    }
    withExtendedLifetime(retired) {}  // dropped here, on the creating thread, outside the lock
    return ticket
  }

  /// Stores the handle of a task that was just created (unless it has already finished), and
  /// cancels it at once when ``cancelAll()`` ran between its registration and now. The task is
  /// created outside the lock: its creation enqueues it, and a task that starts and finishes at
  /// once must not wait for the lock its creator holds.
  private func attach(_ handle: TaskHandle, to ticket: Registry.Ticket, name: String?, site: CallSite) {
    if registry.withLock({ $0.attach(handle, to: ticket) }) { handle.cancel() }
    CurrentRun.noteCreated(handle.task, name: name, site: site)
  }
}

// MARK: - Creating the underlying tasks

private func finish(
  _ ticket: TestTaskFactory.Registry.Ticket, in registry: Locked<TestTaskFactory.Registry>
) {
  CurrentRun.noteFinished()
  let waiters = registry.withLock { $0.finish(ticket.slot) }
  for waiter in waiters { waiter.resume() }
}

/// A task's handle with its result type erased, to store and cancel it without runtime metadata
/// or an existential: every `Task` is one reference to the runtime's task object, whatever its
/// `Success` and `Failure`, and cancelling does not depend on them.
struct TaskHandle: CancellableTask {
  /// The task, typed as no particular task (it is never awaited through this handle).
  let task: Task<Never, Never>

  init<Success, Failure>(_ task: Task<Success, Failure>) {
    self.task = unsafeBitCast(task, to: Task<Never, Never>.self)
  }

  func cancel() { task.cancel() }
}

func isMainActor(_ actor: (any Actor)?) -> Bool {
  guard let actor else { return false }
  return ObjectIdentifier(actor) == ObjectIdentifier(MainActor.shared)
}
