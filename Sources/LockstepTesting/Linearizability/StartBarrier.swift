import Foundation
import LockstepInterposition

/// Lets the tasks of a stress run begin their calls at the same moment, never sleeping. Each task
/// arrives and spins until all have arrived; then each says it is running and spins until all have
/// said so, so that a task the system paused while it waited is waited for, running, rather than
/// left behind. A task spins for up to a few milliseconds when every task can have a core of its
/// own, so that one that waits for a thread of the cooperative pool (busy with other tests) still
/// finds the others spinning; with more tasks than cores it yields its thread soon instead, so
/// that the others can arrive.
final class StartBarrier: @unchecked Sendable {
  // `cells` is touched only through atomic operations.

  /// How many times a task checks the barrier before it yields its thread once (while they
  /// arrive), or goes on (once they have).
  private let spins: Int
  private let parties: Int64
  /// How many tasks have arrived, and how many have said they are running.
  private let cells: UnsafeMutablePointer<Int64>

  /// A barrier that releases `parties` tasks.
  init(parties: Int) {
    self.parties = Int64(parties)
    spins = parties <= ProcessInfo.processInfo.activeProcessorCount ? 1 << 16 : 1 << 10
    cells = .allocate(capacity: 2)
    cells.initialize(repeating: 0, count: 2)
  }

  deinit {
    cells.deinitialize(count: 2)
    cells.deallocate()
  }

  /// Waits until every party has arrived, and then until every one is running.
  func arrive() async {
    lockstep_atomic_add(cells, 1)
    var count = 0
    while lockstep_atomic_load(cells) < parties {
      count += 1
      if count >= spins {
        count = 0
        await Task.yield()
      }
    }
    lockstep_atomic_add(cells + 1, 1)
    count = 0
    while lockstep_atomic_load(cells + 1) < parties && count < 1 << 12 { count += 1 }
  }
}
