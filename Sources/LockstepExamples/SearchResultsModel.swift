public import Lockstep

/// Scenario 3, "newest query wins": a main-actor search model that starts a request for each
/// query, without waiting for the previous one to finish. Requests may finish in any order; the
/// results on screen must always be those of the newest query.
///
/// Earlier requests are not cancelled (many backends answer anyway); a generation number alone
/// keeps stale results out. The `.broken` ``Variant`` forgets that check, so whichever request
/// finishes last wins: releasing the newer request first makes it fail, every time.
@MainActor
public final class SearchResultsModel {
  /// Answers search queries.
  public protocol Backend: Sendable {
    /// The results for `query`.
    func search(_ query: String) async throws -> [String]
  }

  /// The newest query, as typed.
  public private(set) var query = ""
  /// The results on screen.
  public private(set) var results: [String] = []
  /// Whether the newest query's request is in flight.
  public private(set) var isSearching = false

  private let backend: any Backend
  private let tasks: any TaskFactory
  private let variant: Variant
  private var generation = 0

  /// Creates the model.
  public init(backend: any Backend, tasks: any TaskFactory, variant: Variant = .correct) {
    self.backend = backend
    self.tasks = tasks
    self.variant = variant
  }

  /// Starts searching for `query`; its results replace those of every older query.
  ///
  /// - Returns: The request's task, for callers that want to await it.
  @discardableResult
  public func search(_ query: String) -> Task<Void, Never> {
    generation += 1
    let mine = generation
    self.query = query
    isSearching = true
    return tasks.task(name: "search \(query)") {
      let found = try? await self.backend.search(query)
      guard self.variant == .broken || mine == self.generation else { return }
      self.results = found ?? []
      self.isSearching = false
    }
  }
}
