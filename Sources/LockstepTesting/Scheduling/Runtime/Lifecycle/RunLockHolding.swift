/// One holding of the process's run lock by an entry point (``RunLifecycle/exclusively(at:_:)``):
/// released exactly once — by the entry point when it returns, or, when its run's thread is
/// blocked for good, by the ``RunWatchdog`` on its behalf, so that later runs go on.
final class RunLockHolding: Sendable {
  private let released = Locked(false)

  /// The holding of the entry point that holds the run lock now; every run is built holding it.
  static var current: RunLockHolding? { slot.withLock { $0 } }
  private static let slot = Locked<RunLockHolding?>(nil)

  /// Makes this the current holding: called when its entry point has taken the lock, or taken it
  /// back after letting other runs go first.
  func becomeCurrent() { Self.slot.withLock { $0 = self } }

  /// Releases the run lock unless it was released already; returns whether this call did.
  @discardableResult
  func release() -> Bool {
    let first = released.withLock { released in
      defer { released = true }
      return !released
    }
    guard first else { return false }
    Self.slot.withLock { if $0 === self { $0 = nil } }
    RunSerializer.shared.release()
    return true
  }
}
