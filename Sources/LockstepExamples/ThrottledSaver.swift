import Foundation
public import Lockstep

/// Saves a document's draft at most once per interval while the user types, with `asyncAfter`
/// the way legacy code does it, and saves at once when asked (say, when the app goes to the
/// background).
///
/// ```swift
/// let saver = ThrottledSaver(queue: DispatchQueue.main, interval: .seconds(1)) { draft in
///   try? draft.write(to: fileURL, atomically: true, encoding: .utf8)
/// }
/// textView.onChange { saver.edit($0) }
/// ```
///
/// The first edit after a save schedules a save one interval later; edits in between only
/// replace the draft, so the save writes the latest one. ``saveNow()`` saves at once and cancels
/// the scheduled save. The `.broken` variant forgets to cancel it, so the same draft is saved a
/// second time when the timer fires.
public final class ThrottledSaver: Sendable {
  private let queue: any WorkScheduler
  private let interval: Duration
  private let variant: Variant
  private let save: @Sendable (String) -> Void
  private let state = SaverState()

  /// Creates the saver.
  ///
  /// - Parameter save: Writes a draft; called on `queue`.
  public init(
    queue: any WorkScheduler, interval: Duration, variant: Variant = .correct,
    save: @escaping @Sendable (String) -> Void
  ) {
    self.queue = queue
    self.interval = interval
    self.variant = variant
    self.save = save
  }

  /// The user changed the draft: saves it within one interval.
  public func edit(_ draft: String) {
    state.lock.withLock {
      state.draft = draft
      guard state.pending == nil else { return }
      state.pending = queue.schedule(after: interval) { [self] in fire() }
    }
  }

  /// Saves the current draft now, and cancels the scheduled save.
  public func saveNow() {
    let (draft, pending) = state.lock.withLock {
      defer { state.pending = nil }
      return (state.draft, state.pending)
    }
    if variant == .correct { pending?.cancel() }  // the broken variant forgets this
    save(draft)
  }

  private func fire() {
    let draft = state.lock.withLock {
      state.pending = nil
      return state.draft
    }
    save(draft)
  }
}

/// The saver's mutable state, guarded by `lock`.
private final class SaverState: @unchecked Sendable {
  let lock = NSLock()
  var draft = ""
  var pending: ScheduledWork?
}
