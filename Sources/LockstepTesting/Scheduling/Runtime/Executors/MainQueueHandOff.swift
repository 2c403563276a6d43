import Dispatch
import LockstepInterposition

/// Blocks a run's jobs put on the main queue become main-actor tasks of the run (Linux):
/// `LockstepInterposition` defines `dispatch_async` and `dispatch_after`, which
/// `DispatchQueue.main.async` and `asyncAfter` reach, and while a run is drained its thread's
/// main-queue blocks come here instead of going to the main queue. Each runs as a `@MainActor`
/// task of the run, in the run's order; an `asyncAfter` block first sleeps its delay in the run's
/// time. So a `@MainActor` caller, which holds the main queue while it drains its run, never waits
/// for a block that cannot run (a deadlock that is not one), and legacy code's delays are virtual.
///
/// A probe checks once per process that the calls reach Lockstep's definitions. Where they do not
/// (Apple platforms, a statically linked libdispatch), blocks go to the real main queue: a
/// `@MainActor` caller's run that has nothing else to do then yields the main actor once before
/// it reports a deadlock, so that the block runs.
enum MainQueueHandOff {
  /// Whether runs take their main-queue blocks: the probe passed.
  static let isInEffect: Bool = probe()

  // While it is, a stretch of a run's draining names the run as its thread's run (`RunContext`):
  // the stand-ins take the main-queue blocks of its jobs, and their waits, lock calls and run
  // loops, to it.

  /// Queues blocks on the main queue and another from this thread and checks what the stand-ins saw.
  private static func probe() -> Bool {
    guard lockstep_main_queue_interposable() else { return false }
    lockstep_main_queue_set_observer { context, block, delayed, delay in
      guard let context, let block else { return false }
      let run = Unmanaged<DeterministicRun>.fromOpaque(context).takeUnretainedValue()
      guard run.takesMainQueueBlock() else { return false }
      MainQueueHandOff.start(
        MainQueueHandOff.Block(pointer: block), after: delayed ? .nanoseconds(delay) : nil)
      return true
    }
    lockstep_main_queue_set_outside_observer { token, block, delayed, delay in
      guard let token, let block else { return false }
      let work = Unmanaged<OutsideWorkTracking.Token>.fromOpaque(token).takeUnretainedValue()
      // XCTest's waiter queues its own bookkeeping, not the code under test's (as for other queues).
      guard work.kind != .expectationWaiter, let run = work.run, run.takesMainQueueBlock() else {
        return false
      }
      return MainQueueHandOff.take(
        MainQueueHandOff.Block(pointer: block), after: delayed ? .nanoseconds(delay) : .zero, from: run)
    }
    return seen { DispatchQueue.main.async {} } == 1
      // libdispatch runs a block due now with `dispatch_async`, which may be seen too.
      && seen { DispatchQueue.main.asyncAfter(deadline: .now()) {} } >= 1
      && seen { DispatchQueue.global().async {} } == 0
  }

  /// How many main-queue blocks the stand-ins saw `queue` queue on this thread.
  private static func seen(_ queue: () -> Void) -> Int32 {
    var saved = lockstep_run_context()
    lockstep_main_queue_probe_begin(&saved)
    queue()
    return lockstep_main_queue_probe_end(&saved)
  }

  /// Starts the task that runs `block` on the main actor, after `delay` of the run's time. Called
  /// on the drain thread, during a job: the task is the run's.
  private static func start(_ block: Block, after delay: Duration?) {
    let operation: @MainActor @Sendable () async -> Void = {
      if let delay { try? await Task.sleep(for: delay) }
      lockstep_main_queue_run_block(block.pointer)
    }
    if #available(LockstepTaskNames , *) {
      Task(
        name: delay == nil ? "DispatchQueue.main.async" : "DispatchQueue.main.asyncAfter",
        operation: operation)
    } else {
      Task(operation: operation)
    }
  }

  /// Takes `block`, queued for the main queue by outside work of `run` (a block on another queue):
  /// outside work until, `delay` later in the run's time, the drain starts its main-actor task.
  /// Whether the run took it (it is in progress).
  private static func take(_ block: Block, after delay: Duration, from run: DeterministicRun) -> Bool {
    guard let id = run.beginOutsideWork(.async, label: "com.apple.main-thread", byRunningJob: false) else {
      return false
    }
    let timer = run.outsideWorkRests(id, for: delay) {
      start(block, after: nil)
      run.endOutsideWork(id)
    }
    if timer == nil { run.endOutsideWork(id) }
    return timer != nil
  }

  /// A block the main queue would have run, owned until it runs.
  private struct Block: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
  }
}

extension DeterministicRun {
  /// Whether a main-queue block that this thread queues, working for this run (draining it, or as
  /// its outside work), is the run's, as ``JobRouter`` routes it.
  fileprivate func takesMainQueueBlock() -> Bool {
    let drained = (run: self, bodyTaskID: bodyTaskID)
    guard case .run = JobRouter.runToAsk(.mainQueueBlock, drained: drained, owner: { _ in nil }) else {
      return false
    }
    return state.withLock { JobRouter.route(.mainQueueBlock, in: $0) } == .run(task: 0)
  }
}
