/// One holding of the process's run lock by an entry point (``RunLifecycle/exclusively(at:_:)``):
/// released exactly once — by the entry point when it returns, or, when its run's thread is
/// blocked for good, by the ``RunWatchdog`` on its behalf, so that later runs go on.
final class RunLockHolding: Sendable {
  private let released = Locked(false)

  /// The holding of the exploration whose task builds runs now, if any: its runs are built with it.
  @TaskLocal static var current: RunLockHolding?

  /// Releases the run lock unless it was released already; returns whether this call did.
  @discardableResult
  func release() -> Bool {
    let first = released.withLock { released in
      defer { released = true }
      return !released
    }
    guard first else { return false }
    RunSerializer.shared.release()
    return true
  }
}
