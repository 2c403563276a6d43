#if canImport(Observation)
  public import Lockstep
  public import Observation

  /// Loads the items of a list.
  public protocol ItemsService: Sendable {
    /// The items to show.
    func fetchItems() async throws -> [String]
  }

  /// Scenario 8, "values over time": a main-actor `@Observable` view model whose `load()` shows a
  /// spinner while it fetches the items. `isLoading` must go `false → true → false` through every
  /// load, whether it succeeds or fails.
  ///
  /// The `.broken` variant forgets to reset `isLoading` when the fetch fails: the spinner spins
  /// forever after an error.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
  @MainActor @Observable
  public final class ItemsModel {
    /// Whether a load is in progress: the screen shows a spinner.
    public private(set) var isLoading = false
    /// The items of the last successful load.
    public private(set) var items: [String] = []
    /// The error of the last failed load, for an alert.
    public private(set) var errorMessage: String?

    @ObservationIgnored private let service: any ItemsService
    @ObservationIgnored private let tasks: any TaskFactory
    @ObservationIgnored private let variant: Variant

    /// Creates the model.
    public init(service: any ItemsService, tasks: any TaskFactory = .live, variant: Variant = .correct) {
      self.service = service
      self.tasks = tasks
      self.variant = variant
    }

    /// Starts a load; called from a UI lifecycle hook, so it is synchronous.
    public func load() {
      isLoading = true
      errorMessage = nil
      tasks.task(name: "load items") {
        do {
          self.items = try await self.service.fetchItems()
          self.isLoading = false
        } catch {
          self.errorMessage = "\(error)"
          if self.variant == .correct { self.isLoading = false }
        }
      }
    }
  }
#endif
