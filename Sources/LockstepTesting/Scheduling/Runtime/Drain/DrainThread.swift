import Foundation

/// Lockstep's own thread, which drains the deterministic runs that cannot be drained on the
/// caller's thread (see ``DrainingRun`` for which run a thread drains). One thread serves every
/// run of the process (runs never overlap: the run lock, ``RunSerializer``, checked when a run
/// is built), so starting a run costs a wake-up, not a thread.
///
/// A long-lived thread also keeps the C allocator's memory warm: glibc gives a new thread's heap
/// back to the kernel, so a thread per run page-faults on every allocation of the next run.
final class DrainThread: @unchecked Sendable {
  static let shared = DrainThread()

  private let pending = Locked<[(run: DeterministicRun, done: @Sendable (DrainOutcome) -> Void)]>([])
  private let available = DispatchSemaphore(value: 0)
  private let started = Locked(false)
  /// This thread, for ``isCurrentThread``.
  private static let threadFlag = ThreadFlag()

  /// Whether the calling thread is this thread.
  static var isCurrentThread: Bool { threadFlag.isSet }

  /// Drains `run` on this thread and returns its outcome.
  func drain(_ run: DeterministicRun) async -> DrainOutcome {
    await withCheckedContinuation { continuation in
      submit(run) { continuation.resume(returning: $0) }
    }
  }

  /// Drains `run` on this thread, then calls `done` there.
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
        next.done(next.run.drainBlocking(from: .thread))
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
