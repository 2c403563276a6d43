import Foundation

/// Lockstep's own threads, which drain the deterministic runs that cannot be drained on the
/// caller's thread (see ``DrainingRun`` for which run a thread drains). Runs proceed side by side,
/// so each run being drained has a thread of its own; a thread that finishes a run waits for the
/// next one, so starting a run costs a wake-up, not a thread. When a run's job blocks its thread
/// for good, the ``RunWatchdog`` gives that thread up (``replace(ifDraining:outcome:)``): it never
/// serves another run.
///
/// Long-lived threads also keep the C allocator's memory warm: glibc gives a new thread's heap
/// back to the kernel, so a thread per run page-faults on every allocation of the next run.
final class DrainThread: @unchecked Sendable {
  static let shared = DrainThread()

  /// The most idle threads kept for later runs; a thread finishing a run beyond them ends.
  static let idleLimit = 8

  /// One serving thread: a run to drain, and who waits for its outcome.
  private final class Worker: @unchecked Sendable {
    let wake = DispatchSemaphore(value: 0)
    /// Set by the pool under its lock before `wake` is signalled; read by the worker after.
    var assignment: (run: DeterministicRun, delivery: Delivery)?
  }

  private struct State {
    var idle: [Worker] = []
    /// The run each busy thread drains.
    var draining: [ObjectIdentifier: (worker: Worker, delivery: Delivery)] = [:]
    /// Threads given up: they never take another run.
    var givenUp: Set<ObjectIdentifier> = []

    /// Where a worker goes after its run: back to the idle threads, or its end.
    mutating func finished(_ worker: Worker, run: DeterministicRun) -> Bool {
      if draining[ObjectIdentifier(run)]?.worker === worker { draining[ObjectIdentifier(run)] = nil }
      if givenUp.remove(ObjectIdentifier(worker)) != nil { return false }
      guard idle.count < DrainThread.idleLimit else { return false }
      idle.append(worker)
      return true
    }
  }
  private let state = Locked(State())
  /// The name of these threads.
  static let threadName = "Lockstep deterministic runs"

  /// Whether the calling thread is one of these threads.
  static var isCurrentThread: Bool { Thread.current.threadDictionary[threadKey] != nil }
  private static let threadKey = "LockstepDrainThread"

  /// Drains `run` on a thread of its own and returns its outcome.
  func drain(_ run: DeterministicRun) async -> DrainOutcome {
    await withCheckedContinuation { continuation in
      submit(run) { continuation.resume(returning: $0) }
    }
  }

  /// Drains `run` on a thread of its own, then calls `done` there.
  func submit(_ run: DeterministicRun, done: @escaping @Sendable (consuming DrainOutcome) -> Void) {
    let delivery = Delivery(done)
    let (worker, isNew) = state.withLock { state -> (Worker, Bool) in
      let worker = state.idle.popLast()
      let chosen = worker ?? Worker()
      chosen.assignment = (run, delivery)
      state.draining[ObjectIdentifier(run)] = (chosen, delivery)
      return (chosen, worker == nil)
    }
    if isNew { start(worker) }
    worker.wake.signal()
  }

  /// Gives up the thread that drains `run` (its job blocks it for good); returns whether one did.
  /// The run's caller gets `outcome` now, if there is one; otherwise the thread, if its job ever
  /// returns, finishes that run and hands its caller the outcome. Then it ends.
  @discardableResult
  func replace(ifDraining run: DeterministicRun, outcome: DrainOutcome? = nil) -> Bool {
    let delivery = state.withLock { state -> Delivery? in
      guard let (worker, delivery) = state.draining.removeValue(forKey: ObjectIdentifier(run)) else {
        return nil
      }
      state.givenUp.insert(ObjectIdentifier(worker))
      return delivery
    }
    guard let delivery else { return false }
    if let outcome { delivery.deliver(outcome) }
    return true
  }

  private func start(_ worker: Worker) {
    let thread = Thread { [self] in
      Thread.current.threadDictionary[Self.threadKey] = true
      while true {
        worker.wake.wait()
        guard let (outcome, delivery, stays) = serve(worker) else { continue }  // a spare signal
        delivery.deliver(consume outcome)
        if !stays { return }
      }
    }
    thread.name = Self.threadName
    thread.stackSize = 8 << 20
    thread.start()
  }

  /// Drains the run assigned to `worker`, if one is: its outcome, who waits for it, and whether
  /// the thread stays for another run. The thread lets go of the run before it hands the outcome
  /// over, so that the caller holds the only reference to the run's buffers (an exploration
  /// reuses them for its next schedule).
  private func serve(_ worker: Worker) -> (DrainOutcome, Delivery, Bool)? {
    let assignment = state.withLock { _ in
      defer { worker.assignment = nil }
      return worker.assignment
    }
    guard let (run, delivery) = assignment else { return nil }
    let outcome = run.drainBlocking(from: .thread)
    let stays = state.withLock { $0.finished(worker, run: run) }
    return (outcome, delivery, stays)
  }
}

/// Hands a run's outcome to its caller once: from the drain thread when the run ends there, or
/// earlier, when the run ended on another thread while that one was blocked.
private final class Delivery: Sendable {
  private let done: Locked<(@Sendable (consuming DrainOutcome) -> Void)?>

  init(_ done: @escaping @Sendable (consuming DrainOutcome) -> Void) { self.done = Locked(done) }

  func deliver(_ outcome: consuming DrainOutcome) {
    let done = self.done.withLock { done in
      defer { done = nil }
      return done
    }
    done?(consume outcome)
  }
}
