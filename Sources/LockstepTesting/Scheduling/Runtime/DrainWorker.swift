import Foundation

/// The thread that drains deterministic runs started from async code. One thread serves every run
/// of the process (runs never overlap), so starting a run costs a wake-up, not a thread.
///
/// It also keeps the C allocator's memory warm: a run allocates its tasks on the drain thread, and
/// glibc gave a new thread's heap back to the kernel between runs, so with a thread per run a run
/// of 100,000 `Task {}` took ~40,000 page faults (about half of its time) where the global
/// executor's long-lived threads took ~3,000.
final class DrainWorker: @unchecked Sendable {
  static let shared = DrainWorker()

  private let pending = Locked<[(run: DeterministicRun, done: @Sendable (DrainOutcome) -> Void)]>([])
  private let available = DispatchSemaphore(value: 0)
  private let started = Locked(false)
  /// The worker thread, for ``isCurrentThread``.
  private static let threadFlag = ThreadFlag()

  /// Whether the calling thread is the worker thread.
  static var isCurrentThread: Bool { threadFlag.isSet }

  /// Drains `run` on the worker thread and returns its outcome.
  func drain(_ run: DeterministicRun) async -> DrainOutcome {
    await withCheckedContinuation { continuation in
      submit(run) { continuation.resume(returning: $0) }
    }
  }

  /// Drains `run` on the worker thread, then calls `done` there.
  func submit(_ run: DeterministicRun, done: @escaping @Sendable (DrainOutcome) -> Void) {
    pending.withLock { $0.append((run, done)) }
    startIfNeeded()
    available.signal()
  }

  private func startIfNeeded() {
    let start = started.withLock { started in
      defer { started = true }
      return !started
    }
    guard start else { return }
    let thread = Thread { [self] in
      Self.threadFlag.set()
      while true {
        available.wait()
        guard let next = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
        next.done(next.run.drainToEnd())
      }
    }
    thread.name = "Lockstep deterministic runs"
    thread.stackSize = 8 << 20
    thread.start()
  }
}

/// A flag of one thread: set on it, read on any.
private final class ThreadFlag: Sendable {
  private let owner = Locked<Thread?>(nil)
  func set() { owner.withLock { $0 = Thread.current } }
  var isSet: Bool { owner.withLock { $0 } === Thread.current }
}
