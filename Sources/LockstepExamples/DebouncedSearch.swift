public import Lockstep

/// Answers search queries.
public protocol SearchBackend: Sendable {
  /// The results for `query`.
  func search(_ query: String) async throws -> [String]
}

/// Scenario 3, "debounced search": a main-actor search model that waits for a quiet period (80 ms
/// by default) after each keystroke, then queries the backend with the latest text.
///
/// ```swift
/// let search = DebouncedSearch(backend: LiveSearchBackend(), clock: ContinuousClock())
/// search.textChanged("s")
/// search.textChanged("sw")      // restarts the quiet period: only "sw" is searched
/// ```
///
/// Every keystroke cancels the pending search and starts a new one, and bumps a *generation*.
/// A request that was already in flight may still answer after a newer one (many network stacks
/// ignore cancellation once a request is sent); the generation check throws such a stale answer
/// away, so the newest query's results always win.
///
/// The `.broken` variant has no generation check: when the older request answers last, its
/// results overwrite the newer ones.
@MainActor
public final class DebouncedSearch {
  /// The text typed so far.
  public private(set) var text = ""
  /// The results of the newest query that has answered.
  public private(set) var results: [String] = []

  private let backend: any SearchBackend
  private let clock: any Clock<Duration>
  private let tasks: any TaskFactory
  private let quietPeriod: Duration
  private let variant: Variant
  private var generation = 0
  private var pending: Task<Void, Never>?

  /// Creates the model.
  ///
  /// - Parameters:
  ///   - clock: The clock to wait on: `ContinuousClock()` in the app, `TestClock` in tests.
  ///   - quietPeriod: How long the text must stay unchanged before a query is sent.
  public init(
    backend: any SearchBackend, clock: any Clock<Duration>, tasks: any TaskFactory = .live,
    quietPeriod: Duration = .milliseconds(80), variant: Variant = .correct
  ) {
    self.backend = backend
    self.clock = clock
    self.tasks = tasks
    self.quietPeriod = quietPeriod
    self.variant = variant
  }

  /// Called on every keystroke with the whole text of the search field.
  public func textChanged(_ text: String) {
    self.text = text
    generation += 1
    let generation = self.generation
    pending?.cancel()
    pending = tasks.task(name: "search \"\(text)\"") {
      do {
        try await self.clock.sleep(for: self.quietPeriod)
      } catch {
        return  // cancelled by a newer keystroke
      }
      let found: [String]
      do {
        found = try await self.backend.search(text)
      } catch {
        return
      }
      // A newer query started while this one was in flight: its results win, drop these.
      if self.variant == .correct, generation != self.generation { return }
      self.results = found
    }
  }
}
