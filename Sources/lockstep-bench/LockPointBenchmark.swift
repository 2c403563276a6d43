import Foundation
import LockstepTesting
import Synchronization

// What a lock point costs (Linux): an exploration whose two tasks each take an `NSLock` 20 times
// — every take a choice point, where the picker may run the other task first — against the same
// exploration with a `Synchronization.Mutex`, whose inlined lock Lockstep does not see. Random
// schedules, so about half the choices switch threads. Nonisolated caller.

func lockPointCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Lock points: NSLock sections in an exploration, against unseen Mutex sections") {
    #if os(Linux)
      let schedules = quick ? 40 : 200
      let sections = 20
      let (locked, unseen) = await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
        _ = await explore(.random(schedules: schedules, seed: 1)) {
          await twoTasks(NSLockCounter(), sections)
        }
      } _: {
        _ = await explore(.random(schedules: schedules, seed: 1)) { await twoTasks(MutexCounter(), sections) }
      }
      let operations = Double(schedules * 2 * sections)
      let perLock = (locked - unseen) / operations * 1e6
      return [
        .compared(
          "lock-point", "an exploration's NSLock take and release, per pair, random schedules",
          locked / operations * 1e6, "µs", against: "the same sections under an unseen Mutex",
          baseline: unseen / operations * 1e6, goal: "≤ 50 µs more a lock", met: perLock <= 50)
      ]
    #else
      return []
    #endif
  }
}

#if os(Linux)
  private protocol BenchCounter: Sendable { func increment() }

  private final class NSLockCounter: BenchCounter, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
  }

  private final class MutexCounter: BenchCounter {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
  }

  private func twoTasks(_ counter: some BenchCounter, _ sections: Int) async {
    let first = Task { for _ in 0..<sections { counter.increment() } }
    let second = Task { for _ in 0..<sections { counter.increment() } }
    await first.value
    await second.value
  }
#endif
