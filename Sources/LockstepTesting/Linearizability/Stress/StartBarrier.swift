import Foundation
import LockstepInterposition

/// Lets the tasks of a stress run begin their calls at the same moment, never sleeping.
///
/// Each task arrives and spins until all have arrived, yielding its thread now and then so that a
/// task still waiting for a thread of the cooperative pool can have one. Then, on Linux, each
/// moves its thread to a core of its own among those the process may use (and back when it goes),
/// and spins, writing the time into a cell of its own at every turn and yielding its core to the
/// system between turns, until the cells say that enough tasks are running at this very moment —
/// all of them, or as many as there are cores — and goes. A task the system paused after it
/// arrived (a busy machine, other tests beside it) is waited for until it runs again, rather than
/// left behind. That wait is bounded (``waitBound``), and the first task to stop waiting releases
/// the others, so a task never spins for long on a thread another one needs.
///
/// Measured with the broken seats of `SeatReservations` (two tasks, one call each, 2-core Linux,
/// debug build), the share of runs whose calls overlapped, beside a second copy of the same check:
/// 1–5 % with a bounded spin alone, 10–12 % waiting for the tasks to run at once, 40–50 % with each
/// task on a core of its own, and 25–29 % when they also yield, but 30–40 % less time for each run
/// that overlapped.
final class StartBarrier: @unchecked Sendable {
  // `cells` is touched only through atomic operations.

  /// How many times a task checks the barrier before it yields its thread once, while they arrive.
  private let spins: Int
  private let parties: Int64
  /// How many tasks must be running at once for them to go.
  private let together: Int
  /// How many tasks have arrived; the last time each task was seen running, in nanoseconds; and
  /// whether one has released the others.
  private let cells: UnsafeMutablePointer<Int64>

  /// How long ago a task's time may have been written for it to count as running now: far more
  /// than a turn of the loop, far less than the system's slices of time.
  static let runningWindow: Int64 = 10_000
  /// The longest a task waits for the others to run at the same moment as it, once all arrived.
  static let waitBound: Int64 = 2_000_000

  /// A barrier that releases `parties` tasks.
  init(parties: Int) {
    self.parties = Int64(parties)
    let cores = ProcessInfo.processInfo.activeProcessorCount
    spins = parties <= cores ? 1 << 16 : 1 << 10
    together = max(1, min(parties, cores))
    cells = .allocate(capacity: parties + 2)
    cells.initialize(repeating: 0, count: parties + 2)
  }

  deinit {
    cells.deinitialize(count: Int(parties) + 2)
    cells.deallocate()
  }

  /// Waits until every party has arrived, then until enough of them run at the same moment.
  func arrive() async {
    let party = Int(lockstep_atomic_add(cells, 1))
    var count = 0
    while lockstep_atomic_load(cells) < parties {
      count += 1
      if count >= spins {
        count = 0
        await Task.yield()
      }
    }
    // On a core of its own while it waits: the system wakes a pool thread on the core of the thread
    // that woke it, and two tasks on one core never run at the same moment.
    let pinned = parties > 1 ? lockstep_pin_to_core(Int32(party)) : nil
    defer { lockstep_unpin(pinned) }
    let beat = cells + 1 + party
    let released = cells + 1 + Int(parties)
    let deadline = Self.now() + Self.waitBound
    while lockstep_atomic_load(released) == 0 {
      let now = Self.now()
      lockstep_atomic_store(beat, now)
      var running = 0
      for other in 0..<Int(parties) where lockstep_atomic_load(cells + 1 + other) > now - Self.runningWindow {
        running += 1
      }
      if running >= together || now >= deadline {
        lockstep_atomic_store(released, 1)
        return
      }
      // Not enough tasks run now: give the core to whatever else waits for it (another test's
      // tasks, spinning like these), so that the tasks that must meet get the cores sooner.
      sched_yield()
    }
  }

  /// The monotonic clock, in nanoseconds.
  private static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
