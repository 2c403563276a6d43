public import Lockstep

/// Fetches the profile of the signed-in user.
public protocol ProfileService: Sendable {
  /// The user's display name.
  func fetchName() async throws -> String
}

/// Scenario 1, "a screen that loads on its own": a main-actor view model whose synchronous
/// `load()` starts a task that fetches the user's name, then starts a nested task that marks the
/// greeting as shown.
///
/// ```swift
/// let model = ProfileModel(service: service, tasks: tasks)
/// model.load()
/// try await tasks.waitUntilIdle()
/// #expect(model.name == "Blob")
/// ```
///
/// The `.broken` variant forgets to check for cancellation after the fetch, so a load cancelled
/// while the service is answering still publishes the name.
@MainActor
public final class ProfileModel {
  /// The loaded name; empty until a load succeeds.
  public private(set) var name = ""
  /// Set by the nested task that the load starts once the name is known.
  public private(set) var greetingShown = false
  /// The error of the last failed load.
  public private(set) var lastError: (any Error)?

  private let service: any ProfileService
  private let tasks: any TaskFactory
  private let variant: Variant
  private var loading: Task<Void, Never>?

  /// Creates the model.
  public init(service: any ProfileService, tasks: any TaskFactory, variant: Variant = .correct) {
    self.service = service
    self.tasks = tasks
    self.variant = variant
  }

  /// Starts loading; called from a UI lifecycle hook, so it is synchronous.
  public func load() {
    loading = tasks.task(name: "load profile") {
      do {
        let fetched = try await self.service.fetchName()
        if self.variant == .correct, Task.isCancelled { return }
        self.name = fetched
        self.tasks.task(name: "show greeting") { self.greetingShown = true }
      } catch {
        if !Task.isCancelled { self.lastError = error }
      }
    }
  }

  /// Cancels a load in progress; a cancelled load leaves no trace.
  public func cancel() {
    loading?.cancel()
  }
}
