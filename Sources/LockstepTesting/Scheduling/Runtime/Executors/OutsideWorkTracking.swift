import Dispatch
import LockstepInterposition

/// Tells runs about the work their jobs hand to other threads (Linux): `LockstepInterposition`'s
/// Dispatch stand-ins (`OutsideBlocks.c`) report each block a run's job queues on a queue other
/// than the main queue — `async`, `async(group:)`, `DispatchGroup.notify` — when it is queued and
/// when it returns, and `ThreadStarts.c` each thread it starts, until the thread returns or
/// resumes the run (``resumed(_:)``); so for the blocks and threads that work starts in turn.
/// Handlers of Dispatch sources set from the run run as outside work too, and a signal the run
/// sends its own process is awaited until a source's event handler runs. The run records it
/// (``OutsideWork``) and keeps virtual time still until it returns. An `asyncAfter` block for such
/// a queue, from a job or from outside work, waits its delay in the run's time first, in a task of
/// the run, and is then queued as outside work.
///
/// In effect where the main-queue hand-off is (``MainQueueHandOff``: the same stand-ins, probed
/// once per process); elsewhere blocks go to their queues unseen, as before.
enum OutsideWorkTracking {
  /// Sets the stand-ins' observers; called once, when the runtime hooks are installed.
  static func install() {
    guard MainQueueHandOff.isInEffect else { return }
    lockstep_outside_work_set_observer(
      { run, parent, kind, label, queue in
        OutsideWorkTracking.began(run: run, parent: parent, kind: kind, label: label, queue: queue)
      },
      { token in
        guard let token else { return }
        Unmanaged<Token>.fromOpaque(token).takeRetainedValue().end()
      },
      { run, parent, queue, block, delay in
        guard let queue, let block else { return false }
        let owner: DeterministicRun
        if let run {
          owner = Unmanaged<DeterministicRun>.fromOpaque(run).takeUnretainedValue()
        } else if let parent, let run = OutsideWorkTracking.run(ofWork: parent) {
          owner = run
        } else {
          return false
        }
        let pending = Pending(queue: queue, block: block)
        OutsideWorkTracking.startAfterDelay(owner, pending, delay: .nanoseconds(delay))
        return true
      })
    lockstep_outside_work_set_clocks { token in
      guard let token else { return nil }
      return Unmanaged<Token>.fromOpaque(token).takeUnretainedValue().clocks
    }
  }

  /// One piece of outside work, owned by the thread that runs it until it returns; or the run a
  /// Dispatch source's event handler belongs to, held weakly for as long as the source keeps the
  /// handler.
  final class Token {
    private let inFlight: DeterministicRun?
    private weak var owner: DeterministicRun?
    let id: UInt64?
    let kind: OutsideWork.Kind
    /// Whether the work already counts as returned: a thread that resumed the run.
    private var ended = false

    init(run: DeterministicRun, id: UInt64?, kind: OutsideWork.Kind) {
      inFlight = id == nil ? nil : run
      owner = run
      self.id = id
      self.kind = kind
    }

    var run: DeterministicRun? { inFlight ?? owner }

    /// The clocks the work reads: its run's, while the work is in flight (which keeps the run,
    /// and so its clocks, alive); the real ones otherwise.
    var clocks: UnsafeMutablePointer<lockstep_virtual_clocks>? { inFlight?.clocks?.pointer }

    /// Called on the work's own thread only.
    func end() {
      guard !ended, let id else { return }
      ended = true
      inFlight?.endOutsideWork(id)
    }
  }

  /// A job from another thread reached `run`: when that thread is one the run's jobs started, it
  /// has resumed the run, and no longer keeps virtual time still — a thread may live on (an event
  /// loop, a waiter's thread) long after it delivered what the run waited for. Blocks on queues
  /// count until they return.
  static func resumed(_ run: DeterministicRun) {
    guard let current = RunContext.here.pointee.outside_token else { return }
    let token = Unmanaged<Token>.fromOpaque(current).takeUnretainedValue()
    if token.kind == .thread || token.kind == .expectationWaiter, token.run === run { token.end() }
  }

  /// The run in progress whose outside work (a block, a source's handler, a thread) the calling
  /// thread runs, if any; not XCTest's waiter, whose work is XCTest's own.
  static var runOfThisThread: DeterministicRun? {
    RunContext.here.pointee.outside_token.flatMap(run(ofWork:))
  }

  /// The run in progress whose outside work `token` is; not XCTest's waiter's. A run that ended
  /// or was quarantined takes nothing more of it (it would hold a task or a block for good).
  static func run(ofWork token: UnsafeMutableRawPointer) -> DeterministicRun? {
    let token = Unmanaged<Token>.fromOpaque(token).takeUnretainedValue()
    guard token.kind != .expectationWaiter, let run = token.run, run.takesOutsideWork else { return nil }
    return run
  }

  /// The kind the stand-ins report, one of the `lockstep_outside_*` constants of `Dispatch.h`:
  /// the C side names each kind once, and this is its only reading.
  static func kind(reported kind: Int32) -> OutsideWork.Kind {
    switch Int(kind) {
    case lockstep_outside_after: .after
    case lockstep_outside_group_async: .groupAsync
    case lockstep_outside_group_notify: .groupNotify
    case lockstep_outside_thread: .thread
    case lockstep_outside_source_registration: .sourceRegistration
    case lockstep_outside_source_owner: .sourceOwner
    case lockstep_outside_source_event: .sourceEvent
    case lockstep_outside_signal: .signal
    case lockstep_outside_expectation_waiter: .expectationWaiter
    default: .async
    }
  }

  private static func began(
    run: UnsafeMutableRawPointer?, parent: UnsafeMutableRawPointer?, kind: Int32,
    label: UnsafePointer<CChar>?, queue: UnsafeMutableRawPointer?
  ) -> UnsafeMutableRawPointer? {
    let byRunningJob = run != nil
    let owner: DeterministicRun
    if let run {
      owner = Unmanaged<DeterministicRun>.fromOpaque(run).takeUnretainedValue()
    } else if let parent {
      let token = Unmanaged<Token>.fromOpaque(parent).takeUnretainedValue()
      // XCTest's waiter queues its own bookkeeping (a watchdog due after the wait's timeout,
      // delegate calls): none of it is the code under test's, nor awaited by the run.
      guard let run = token.run, token.kind != .expectationWaiter else { return nil }
      owner = run
    } else {
      return nil
    }
    var kind = Self.kind(reported: kind)
    // XCTest's waiter can wait in virtual time only where the run's clocks are virtual.
    if kind == .expectationWaiter && owner.clocks == nil { kind = .thread }
    let id = owner.beginOutsideWork(
      kind, label: label.map { String(cString: $0) }, queue: queue.map { UInt(bitPattern: $0) },
      byRunningJob: byRunningJob)
    // A source's event handler keeps its run weakly; a signal gets no token: a handler ends it.
    guard id != nil || kind == .sourceOwner else { return nil }
    return Unmanaged.passRetained(Token(run: owner, id: id, kind: kind)).toOpaque()
  }

  /// Queues `pending` as outside work once `delay` has passed in `run`'s time, from a task of the
  /// run. Called during a job of the run, or in its outside work: either way the task is the
  /// run's (``JobRouter``'s rules 1 and 2).
  private static func startAfterDelay(_ run: DeterministicRun, _ pending: Pending, delay: Duration) {
    let operation: @Sendable () async -> Void = {
      try? await Task.sleep(for: delay)
      lockstep_dispatch_async_now(pending.queue, pending.block)
    }
    if #available(LockstepTaskNames , *) {
      Task(name: "DispatchQueue.asyncAfter", operation: operation)
    } else {
      Task(operation: operation)
    }
  }

  /// A queue and a block the run holds until the block's delay has passed.
  private struct Pending: @unchecked Sendable {
    let queue: UnsafeMutableRawPointer
    let block: UnsafeMutableRawPointer
  }
}
