/// A book, as the book screen shows it.
public struct Book: Equatable, Sendable {
  /// The book's id.
  public let id: Int
  /// The title shown on screen.
  public let title: String

  /// Creates a book.
  public init(id: Int, title: String) {
    self.id = id
    self.title = title
  }
}

/// Loads a book from the network or a database.
public protocol BookLoader: Sendable {
  /// Loads book `id`.
  func load(id: Int) async throws -> Book
}

/// Scenario 2, "two reloads, finishing out of order": a main-actor screen model whose reloads
/// each await a loader. A newer reload may finish before an older one; the screen must show the
/// newest request's outcome, never a late older one.
///
/// ```swift
/// let model = BookScreenModel(loader: LiveBookLoader())
/// await model.reload(id: 7)     // from `.task(id: bookID) { await model.reload(id: bookID) }`
/// print(model.book?.title ?? model.errorMessage ?? "")
/// ```
///
/// Two checks keep it right:
/// - a generation number: only the newest reload may publish its result or its failure;
/// - a cancellation check: a reload whose caller was cancelled publishes nothing, even if the
///   loader ignores cancellation and answers anyway.
///
/// Each broken ``Variant`` leaves out one of them.
@MainActor
public final class BookScreenModel {
  /// Which version of the model to build.
  public enum Variant: String, Sendable, CaseIterable {
    /// The model as it should be written.
    case correct
    /// Forgets the generation check: whichever reload finishes last wins, and an obsolete
    /// failure erases newer content.
    case withoutGenerationCheck
    /// Forgets the cancellation check: a cancelled reload still publishes a late result.
    case withoutCancellationCheck
  }

  /// The book on screen; nil before the first successful reload, or after the newest one failed.
  public private(set) var book: Book?
  /// The message of the newest reload's failure; nil after a success.
  public private(set) var errorMessage: String?
  /// Whether the newest reload is still in flight.
  public private(set) var isLoading = false

  private let loader: any BookLoader
  private let variant: Variant
  private var generation = 0

  /// Creates the model.
  public init(loader: any BookLoader, variant: Variant = .correct) {
    self.loader = loader
    self.variant = variant
  }

  /// Reloads book `id`, superseding any reload still in flight. Runs in the caller's task:
  /// cancelling that task abandons the reload.
  public func reload(id: Int) async {
    generation += 1
    let mine = generation
    isLoading = true
    defer { if isNewest(mine) { isLoading = false } }
    do {
      let loaded = try await loader.load(id: id)
      guard !wasCancelled, isNewest(mine) else { return }
      book = loaded
      errorMessage = nil
    } catch {
      guard !wasCancelled, isNewest(mine) else { return }
      book = nil
      errorMessage = "Could not load book \(id): \(error)"
    }
  }

  /// The generation check, which the `.withoutGenerationCheck` variant leaves out.
  private func isNewest(_ reload: Int) -> Bool {
    variant == .withoutGenerationCheck || reload == generation
  }

  /// The cancellation check, which the `.withoutCancellationCheck` variant leaves out.
  private var wasCancelled: Bool {
    variant != .withoutCancellationCheck && Task.isCancelled
  }
}
