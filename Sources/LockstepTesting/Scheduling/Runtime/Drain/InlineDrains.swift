import Foundation

/// How many runs drain on a caller's thread of the cooperative pool at once. A run drained inline
/// costs no thread hand-off, but a job of it that blocks (a semaphore bridge, `queue.sync`) blocks
/// that thread until the wait ends; runs proceed side by side, so at most ``limit`` of them drain
/// inline at a time — one fewer than the pool has threads — and the others drain on threads of
/// their own (``DrainThread``). The pool always keeps a thread for the rest of the tests.
enum InlineDrains {
  /// The most runs drained on threads of the cooperative pool at once.
  static let limit = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)

  private static let count = Locked(0)

  /// Takes a place for a run drained inline; `false` when every place is taken.
  static func take() -> Bool {
    count.withLock { count in
      guard count < limit else { return false }
      count += 1
      return true
    }
  }

  /// Gives back the place of a run whose inline stretch ended.
  static func giveBack() {
    count.withLock { $0 -= 1 }
  }
}
