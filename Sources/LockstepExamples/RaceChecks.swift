public import Lockstep

/// Scenario 7, "finding a race nobody wrote down": bodies for `explore(_:)` from
/// `LockstepTesting`. Each builds a model afresh, runs it the way the app does — with no gate or
/// controlled call fixing the order — and throws a ``Violation`` when the product's invariant
/// breaks, so that the exploration decides the interleaving and finds the ones that fail.
public enum RaceChecks {
  /// The invariant a check guards did not hold; its description says what the screen showed.
  public struct Violation: Error, Equatable, CustomStringConvertible {
    /// What went wrong, in a sentence.
    public let description: String

    /// Creates a violation.
    public init(_ description: String) {
      self.description = description
    }
  }

  /// Scenario 2 under exploration: reload 1 starts, and once the loader has received request 1,
  /// reload 2 starts; both run at once, and the loader may answer them in either order. When both
  /// have finished, the screen must show book 2 and must not be loading.
  ///
  /// Nothing in the check fixes which answer comes first: the scheduler that runs it does.
  /// `.withoutGenerationCheck` fails whenever the answer to request 1 comes last; `.correct`
  /// passes in every order.
  ///
  /// ```swift
  /// await explore(.exhaustive(maxPreemptions: 2)) {
  ///   try await RaceChecks.twoReloads(
  ///     variant: .correct, loader: RacingBookLoader(onEvent: { Timeline.note($0) }))
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - variant: The model to build.
  ///   - loader: The loader; a fresh one for each run (the default).
  ///   - tasks: Creates the two tasks, named "reload 1" and "reload 2".
  /// - Throws: A ``Violation`` when the screen ends on the wrong book or still loading.
  @MainActor
  public static func twoReloads(
    variant: BookScreenModel.Variant, loader: RacingBookLoader = RacingBookLoader(),
    tasks: any TaskFactory = LiveTaskFactory()
  ) async throws {
    let model = BookScreenModel(loader: loader, variant: variant)
    let report = loader.onEvent
    let first = tasks.task(name: "reload 1") {
      await model.reload(id: 1)
      report("reload 1 done: the screen shows \(shown(model))")
    }
    await loader.waitUntilReceived(1)
    let second = tasks.task(name: "reload 2") {
      await model.reload(id: 2)
      report("reload 2 done: the screen shows \(shown(model))")
    }
    await first.value
    await second.value
    guard model.book?.id == 2 else {
      throw Violation(
        "stale result: both reloads finished and the screen shows \(shown(model)), but the "
          + "newest reload asked for book 2")
    }
    guard !model.isLoading else {
      throw Violation("both reloads finished, but isLoading stayed true")
    }
  }

  @MainActor
  private static func shown(_ model: BookScreenModel) -> String {
    if let book = model.book { return "\"\(book.title)\"" }
    return model.errorMessage.map { "the error \"\($0)\"" } ?? "nothing"
  }
}

/// A ``BookLoader`` whose answers can arrive in any order: each request hops to the loader's
/// actor and yields there before answering, so that requests in flight together answer in the
/// order the scheduler picks — any order, under an exploration.
///
/// Book *n* is titled "Book *n*". `onEvent` hears what the loader received and returned; forward
/// it to `Timeline.note` so that a failing schedule's timeline says which answer came when.
public actor RacingBookLoader: BookLoader {
  /// Hears each event: `loader received request 1`, `loader returns "Book 1"`.
  public nonisolated let onEvent: @Sendable (String) -> Void
  private var received: Set<Int> = []
  private var waiters: [Int: [CheckedContinuation<Void, Never>]] = [:]

  /// Creates a loader that reports its events to `onEvent`.
  public init(onEvent: @escaping @Sendable (String) -> Void = { _ in }) {
    self.onEvent = onEvent
  }

  /// Receives request `id`, lets any other ready work run, then returns book `id`.
  public func load(id: Int) async throws -> Book {
    received.insert(id)
    onEvent("loader received request \(id)")
    for waiter in waiters.removeValue(forKey: id) ?? [] { waiter.resume() }
    await Task.yield()  // the answer is on its way; anything else may happen first
    let book = Book(id: id, title: "Book \(id)")
    onEvent("loader returns \"\(book.title)\"")
    return book
  }

  /// Returns once request `id` has reached the loader — at once if it already has.
  public func waitUntilReceived(_ id: Int) async {
    if received.contains(id) { return }
    await withCheckedContinuation { waiters[id, default: []].append($0) }
  }
}
