import Foundation

/// Lockstep's own thread, which drains the deterministic runs that cannot be drained on the
/// caller's thread (see ``DrainingRun`` for which run a thread drains). One thread serves every
/// run of the process (runs never overlap: the run lock, ``RunSerializer``, checked when a run
/// is built), so starting a run costs a wake-up, not a thread. When a run's job blocks it for
/// good, the ``RunWatchdog`` gives the thread up and a fresh one serves the runs after it
/// (``replace(ifDraining:)``).
///
/// A long-lived thread also keeps the C allocator's memory warm: glibc gives a new thread's heap
/// back to the kernel, so a thread per run page-faults on every allocation of the next run.
final class DrainThread: @unchecked Sendable {
  static let shared = DrainThread()

  private struct State {
    var pending: [(run: DeterministicRun, done: @Sendable (DrainOutcome) -> Void)] = []
    /// The run the serving thread drains now, and who waits for its outcome.
    var draining: DeterministicRun?
    var delivery: Delivery?
    /// The serving thread's number: a thread whose number is not this one was given up.
    var generation = 0
    var started = false
  }
  private let state = Locked(State())
  private let available = DispatchSemaphore(value: 0)
  /// The serving thread, for ``isCurrentThread``.
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
    let start = state.withLock { state -> Int? in
      state.pending.append((run, done))
      guard !state.started else { return nil }
      state.started = true
      return state.generation
    }
    if let start { startThread(generation: start) }
    available.signal()
  }

  /// Gives up the serving thread if it drains `run` (its job blocks it for good) and starts a
  /// fresh one for the runs after it; returns whether it did. The run's caller gets `outcome` now,
  /// if there is one; otherwise the old thread, if its job ever returns, finishes that run and
  /// hands its caller the outcome. Then it stops.
  @discardableResult
  func replace(ifDraining run: DeterministicRun, outcome: DrainOutcome? = nil) -> Bool {
    let replaced = state.withLock { state -> (generation: Int, delivery: Delivery?)? in
      guard state.draining === run else { return nil }
      state.draining = nil
      state.generation += 1
      return (state.generation, state.delivery)
    }
    guard let (next, delivery) = replaced else { return false }
    if let outcome { delivery?.deliver(outcome) }
    startThread(generation: next)
    // The old thread may have consumed no signal yet for what is pending: wake the new one.
    available.signal()
    return true
  }

  private func startThread(generation: Int) {
    let thread = Thread { [self] in
      Self.threadFlag.set()
      while true {
        available.wait()
        let next = state.withLock {
          state -> (run: DeterministicRun, delivery: Delivery)?? in
          guard state.generation == generation else { return .some(nil) }
          guard !state.pending.isEmpty else { return nil }
          let next = state.pending.removeFirst()
          state.draining = next.run
          state.delivery = Delivery(next.done)
          return (next.run, state.delivery!)
        }
        guard let next else { continue }  // a spare signal
        guard let (run, delivery) = next else {
          available.signal()  // not this thread's any more: the signal is the new one's
          return
        }
        let outcome = run.drainBlocking(from: .thread)
        let current = state.withLock { state in
          if state.generation == generation { state.draining = nil }
          return state.generation == generation
        }
        delivery.deliver(outcome)
        if !current { return }
      }
    }
    thread.name = "Lockstep deterministic runs"
    thread.stackSize = 8 << 20
    thread.start()
  }
}

/// Hands a run's outcome to its caller once: from the drain thread when the run ends there, or
/// earlier, when the run ended on another thread while that one was blocked.
private final class Delivery: Sendable {
  private let done: Locked<(@Sendable (DrainOutcome) -> Void)?>

  init(_ done: @escaping @Sendable (DrainOutcome) -> Void) { self.done = Locked(done) }

  func deliver(_ outcome: DrainOutcome) {
    let done = self.done.withLock { done in
      defer { done = nil }
      return done
    }
    done?(outcome)
  }
}

/// A flag of one thread: set on it, read on any.
private final class ThreadFlag: Sendable {
  private let owner = Locked<Thread?>(nil)
  func set() { owner.withLock { $0 = Thread.current } }
  var isSet: Bool { owner.withLock { $0 } === Thread.current }
}
