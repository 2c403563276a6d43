/// Creates the unstructured tasks that an object starts on its own, so that a test can control
/// them.
///
/// Write production code against `TaskFactory` instead of calling `Task { }` directly. In the app,
/// pass ``LiveTaskFactory`` (it simply creates the task); in a test, pass `TestTaskFactory` from
/// `LockstepTesting`, which records every task and lets the test wait until all of them — nested
/// ones included — have finished.
///
/// ```swift
/// @MainActor final class ProfileModel {
///   private(set) var name = ""
///   private let tasks: any TaskFactory
///   private let service: ProfileService
///
///   init(service: ProfileService, tasks: any TaskFactory = .live) {
///     self.service = service
///     self.tasks = tasks
///   }
///
///   func load() {
///     tasks.task(name: "load profile") {   // runs on the main actor, like Task { }
///       self.name = await self.service.fetchName()
///     }
///   }
/// }
/// ```
///
/// A task created through a factory inherits the caller's actor isolation and task-local values
/// exactly as `Task { }` does. Conform your own type only to decorate another factory: the
/// `task(name:priority:…)` methods forward to the two requirements.
public protocol TaskFactory: Sendable {
  /// Creates a task that cannot throw. Call
  /// ``task(name:priority:fileID:filePath:line:column:operation:)->Task<Success,Never>`` instead; this
  /// requirement is what conforming types implement.
  func makeTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never>

  /// Creates a task that can throw. Call
  /// ``task(name:priority:fileID:filePath:line:column:operation:)->Task<Success,Error>`` instead; this
  /// requirement is what conforming types implement.
  func makeThrowingTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error>
}

extension TaskFactory {
  /// Creates and starts a task that runs `operation`, like `Task(name:priority:operation:)`.
  ///
  /// The closure inherits the caller's actor isolation: called from a `@MainActor` method, it runs
  /// on the main actor.
  ///
  /// - Parameters:
  ///   - name: A name shown in Lockstep's reports (and, where the platform supports it, in the
  ///     debugger).
  ///   - priority: The task's priority, or `nil` to inherit it.
  ///   - operation: The work to run.
  /// - Returns: The task's handle, to await or cancel it.
  @discardableResult
  public func task<Success: Sendable>(
    name: String? = nil, priority: TaskPriority? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    makeTask(
      name: name, priority: priority,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      operation: operation)
  }

  /// Creates and starts a task that runs a throwing `operation`, like
  /// `Task(name:priority:operation:)`.
  ///
  /// - Returns: The task's handle; its `value` rethrows the operation's error.
  @discardableResult
  public func task<Success: Sendable>(
    name: String? = nil, priority: TaskPriority? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column,
    @_inheritActorContext operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    makeThrowingTask(
      name: name, priority: priority,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      operation: operation)
  }
}

extension TaskFactory where Self == LiveTaskFactory {
  /// The factory that simply creates tasks: what production code uses.
  public static var live: LiveTaskFactory { LiveTaskFactory() }
}

/// The production ``TaskFactory``: creates each task exactly as `Task { }` would.
///
/// ```swift
/// let model = ProfileModel(service: LiveProfileService(), tasks: LiveTaskFactory())
/// ```
public struct LiveTaskFactory: TaskFactory {
  /// Creates the live factory.
  public init() {}

  /// Creates the task with `Task(name:priority:operation:)`.
  public func makeTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    let task = Task.named(name, priority: priority, operation: operation)
    TaskCreationObservation.observer?.taskCreated(task, name: name, site: site)
    return task
  }

  /// Creates the throwing task with `Task(name:priority:operation:)`.
  public func makeThrowingTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    let task = Task.named(name, priority: priority, operation: operation)
    TaskCreationObservation.observer?.taskCreated(task, name: name, site: site)
    return task
  }
}

extension Task where Failure == Never {
  /// `Task(name:priority:operation:)` where the platform has task names; an unnamed task skips
  /// the name's task option record. Inlinable, so that it is specialized where it is called (the
  /// availability macro cannot be used here).
  @inlinable package static func named(
    _ name: String?, priority: TaskPriority?,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task {
    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *), let name {
      return Task(name: name, priority: priority, operation: operation)
    }
    return Task(priority: priority, operation: operation)
  }
}

extension Task where Failure == any Error {
  /// The throwing `Task(name:priority:operation:)`, named where the platform has task names.
  @inlinable package static func named(
    _ name: String?, priority: TaskPriority?,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task {
    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *), let name {
      return Task(name: name, priority: priority, operation: operation)
    }
    return Task(priority: priority, operation: operation)
  }
}
