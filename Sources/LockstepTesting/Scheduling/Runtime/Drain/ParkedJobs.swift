import Foundation
import LockstepInterposition

/// A job that blocks its thread in a wait — `DispatchSemaphore.wait`, `DispatchGroup.wait` — parks
/// there while the run goes on draining on another thread, one thread running at a time (a baton,
/// as in Rust's shuttle): a task of the run can then signal the semaphore the job waits on, which
/// on the run's only thread would be a deadlock. `BlockingWaits.c` offers each wait of a run's job
/// to the run (Linux); ``ParkedWaits`` decides when the job resumes.
///
/// - The parked thread hands the turn to the thread that resumed it earlier, if one waits for it
///   back, otherwise to a new helper thread, which drains the run from there.
/// - When the run resumes the job (``RunState/Step/resume(_:)``), the drain hands the turn to the
///   parked thread and waits: for the job to park again, or to return. A job that returns on a
///   helper hands the turn back and the helper ends; on the thread whose drain carries the run to
///   its caller, that thread drains on and the waiting helper ends (``BatonSlot/Message``).
/// - A run that ends with jobs parked (a deadlock: a wait nothing in the run can end) releases
///   their threads, whose waits return as if timed out; when the thread that carries the run to
///   its caller was parked, that thread returns the outcome once its job returns.
///
/// A parked thread that holds the main actor (a run drained on the main actor runs every job
/// there) keeps it: the run's main-actor jobs wait until it resumes, as on a blocked main thread.
extension DeterministicRun {
  /// Parks the running job on this thread in a wait of `kind` on `object`, for `timeout` of the
  /// run's time (`nil`: forever); a `.sync` wait makes the blocking `call` instead. Returns the
  /// wait's result (0, or 1 when it timed out), or `nil` when the run does not take the wait and
  /// the caller waits as before.
  func park(
    _ kind: ParkedWaits.Kind, on argument: UnsafeMutableRawPointer?, timeout: Duration?,
    call: (() -> Void)? = nil
  ) -> Int? {
    guard isInJob else { return nil }
    // A wait on a semaphore or a group is a choice point: another job might signal it, or wait
    // on it, first.
    if kind == .semaphore || kind == .group, let argument { choicePoint(at: argument, call: kind.call) }
    let waitOn: UnsafeMutableRawPointer
    let object: UnsafeMutableRawPointer
    switch (kind, argument) {
    case (.sync, let queue?):
      // A semaphore nobody waits on, for the run's end to signal: the call's return ends the wait.
      guard call != nil, let semaphore = lockstep_semaphore_new() else { return nil }
      object = queue
      waitOn = semaphore
    case (.sleep, _):
      // A semaphore nobody signals, made by the run: only the timeout ends the wait.
      guard let timeout, timeout > .zero, let semaphore = lockstep_semaphore_new() else { return nil }
      state.withLock { $0.noteCreatedWaitObject(UInt(bitPattern: semaphore)) }
      object = semaphore
      waitOn = semaphore
    case (.runLoop, let runLoop?):
      // A semaphore nobody signals, made by the run: the wait's time or a stop of the loop ends it.
      // The loop counts as the run's own: the wait is durably blocked, and its time passes.
      guard let semaphore = lockstep_semaphore_new() else { return nil }
      state.withLock { $0.noteCreatedWaitObject(UInt(bitPattern: runLoop)) }
      object = runLoop
      waitOn = semaphore
    case (_, nil), (.lock, _):
      // A lock point parks in `LockPoints.swift`.
      return nil
    case (let kind, let given?):
      object = given
      switch kind {
      case .semaphore, .sleep, .sync, .lock, .runLoop:
        if lockstep_semaphore_wait_now(given, false) == 0 { return 0 }
        waitOn = given
      case .group:
        if lockstep_group_wait_now(given) == 0 { return 0 }
        guard let semaphore = lockstep_group_empty_semaphore(given) else { return nil }
        waitOn = semaphore
      }
      if timeout == .zero {
        if kind == .group { lockstep_semaphore_release(waitOn) }
        return 1
      }
    }
    // The semaphore Lockstep made for the wait, released once it returns.
    let ownsWaitOn = kind != .semaphore
    // A run loop's wait on the main thread runs the run's main-actor work meanwhile, as the main
    // run loop runs the main queue's blocks; any other wait holds the main actor it holds.
    let holdsMainActor = MainActorAccess.isHeldHere
    let serves = kind == .runLoop && holdsMainActor
    let thread = ParkedThread(
      waitOn: waitOn, frames: ParkedThread.stackHere(),
      servant: serves ? DispatchSemaphore(value: 0) : nil)
    let acting = taskRunningInJob()
    guard
      let (id, task) = state.withLock({ state -> (UInt64, Int)? in
        let task = state.jobInProgress.task ?? 0
        return state.park(
          kind, on: UInt(bitPattern: object), timeout: timeout, holdsMainActor: holdsMainActor && !serves,
          actingTask: acting
        ) { id in
          { [weak self] in self?.timeOutParked(id) }
        }.map { ($0, task) }
      })
    else {
      if ownsWaitOn { lockstep_semaphore_release(waitOn) }
      return nil
    }
    lockstep_blocking_waits_parked(1)
    defer { lockstep_blocking_waits_parked(-1) }
    // A signal that came after the first try, before the run knew of the wait, was not told to it:
    // from here on every signal of the run is.
    let signalledMeanwhile =
      switch kind {
      case .semaphore: lockstep_semaphore_wait_now(object, false) == 0
      case .group: lockstep_group_wait_now(object) == 0
      case .sleep, .sync, .lock, .runLoop: false
      }
    if signalledMeanwhile {
      if ownsWaitOn { lockstep_semaphore_release(waitOn) }
      state.withLock { $0.unpark(id, task: task) }
      return 0
    }
    sidelines.withLock { $0.parkedThreads[id] = thread }
    if kind == .runLoop { ParkedRunLoops.enter(object, run: self) }
    defer { if kind == .runLoop { ParkedRunLoops.leave(object) } }
    let fields = handTurnOn()
    typealias WaitEnd = RunState<ScheduledJob>.ParkedWaitEnd
    let (end, message) = ParkedJobs.outsideRun { () -> (WaitEnd, BatonSlot.Message) in
      if let call {
        sidelines.withLock { $0.syncCallsParked += 1 }
        call()
        sidelines.withLock { $0.syncCallsParked -= 1 }
      } else if let servant = thread.servant {
        MainActorAccess.waitServing(servant) { thread.isWoken }
      } else {
        _ = lockstep_semaphore_wait_now(waitOn, true)
      }
      if ownsWaitOn { lockstep_semaphore_release(waitOn) }
      let action = state.withLock { $0.parkedReturned(id) }
      if case .wakeDrainAndWaitForTurn = action { signalWakeup() }
      return (action.end, thread.slot.wait())
    }
    drainerFields = fields
    switch message {
    case .resume(let resumer):
      drainerFields.resumer = resumer
      return end == .timedOut ? 1 : 0
    case .runOver:
      // The run ended (a deadlock) with this job parked: the wait ends as if it timed out, and the
      // job's task stops at its next await (it is quarantined).
      return 1
    case .drainOn, .retire:
      preconditionFailure("a parked thread is handed only its turn or the run's end")
    }
  }

  /// The running job parks: the turn goes to the thread that resumed it earlier, if one waits for
  /// it back, otherwise to a helper. Returns this thread's drain fields, to have back when the job
  /// resumes.
  func handTurnOn() -> DrainerFields {
    var fields = drainerFields
    if let resumer = fields.resumer {
      fields.resumer = nil
      resumer.hand(.drainOn)
    } else {
      ParkedJobs.startHelper(for: self)
    }
    return fields
  }

  /// Makes `queue.sync` for the running job: parked when blocks of the run are on `queue` (one of
  /// them may wait for the run), made at once otherwise. Whether the run made the call.
  func sync(on queue: UnsafeMutableRawPointer, _ block: UnsafeMutableRawPointer?, barrier: Bool) -> Bool {
    guard isInJob else { return false }
    // A serial queue's `sync` is a lock: another job might take it first.
    choicePoint(at: queue, call: ParkedWaits.Kind.sync.call)
    guard state.withLock({ $0.outsideWork.hasWork(onQueue: UInt(bitPattern: queue)) }) else {
      return false
    }
    let call = { lockstep_dispatch_sync_now(queue, block, barrier) }
    return park(.sync, on: queue, timeout: nil, call: call) != nil
  }

  /// Wakes every parked thread still in its wait, the run being over: each then waits for its
  /// turn to go on without the run (``handOnRunOver()``), and returns from the wait as if it timed
  /// out. `waits` are the run's parked waits as the run ended.
  func releaseParkedThreads(_ waits: [ParkedWaits.Wait]) {
    guard !waits.isEmpty else { return }
    let threads = sidelines.withLock { $0.parkedThreads }
    for wait in waits where wait.phase == .waiting { threads[wait.id]?.wake() }
  }

  /// Hands the turn to one parked thread of the run, which is over: it finishes its job (its task
  /// stops at its next await) and its stretch, then hands the turn on in turn, so that the run's
  /// threads still touch its state one at a time. Called by the thread whose stretch ended the run,
  /// last.
  func handOnRunOver() {
    guard let next = sidelines.withLock({ $0.parkedThreads.popFirst()?.value }) else { return }
    next.slot.hand(.runOver)
  }

  /// A job of the run (`byJob`) or its outside work signals a semaphore or a condition (`all`
  /// its waiters: a broadcast), or leaves a `group`: a job parked on it resumes next, once its
  /// thread is back, and outside work waiting on it holds time until it is.
  func signalled(_ object: UnsafeMutableRawPointer, group: Bool, all: Bool, byJob: Bool) {
    if byJob && !isInJob { return }
    if group && lockstep_group_wait_now(object) != 0 { return }
    state.withLock { $0.signalParked(UInt(bitPattern: object), all: all) }
  }

  /// The deadline of parked wait `id` passed in the run's time: its thread is woken, and the wait
  /// returns timed out.
  private func timeOutParked(_ id: UInt64) {
    guard case .wakeThread(let id) = state.withLock({ $0.timeOutParked(id) }) else { return }
    sidelines.withLock { $0.parkedThreads[id] }?.wake()
  }

  /// `runLoop`, in which a job of the run is parked, was stopped (`CFRunLoopStop`): the wait
  /// returns stopped, its job resuming at the next step.
  func runLoopStopped(_ runLoop: UnsafeMutableRawPointer) {
    guard case .wakeThread(let id) = state.withLock({ $0.stopRunLoopWait(UInt(bitPattern: runLoop)) }) else {
      return
    }
    sidelines.withLock { $0.parkedThreads[id] }?.wake()
  }

  /// Hands the turn to the parked job of `wait`, whose thread is back from its wait, and waits for
  /// it back. Returns why this thread stops draining, if it does. Drain thread only.
  func resume(_ wait: ParkedWaits.Wait) -> Stop? {
    guard let thread = sidelines.withLock({ $0.parkedThreads.removeValue(forKey: wait.id) }) else {
      return nil
    }
    let slot = BatonSlot()
    let fields = drainerFields
    // The parked job reads the run's clocks at the instant it resumes.
    clocks?.set(elapsed: state.withLock { $0.nowNanoseconds })
    thread.slot.hand(.resume(slot))
    // Retired, this thread no longer touches the run: the resumed thread drains it now.
    if case .retire = slot.wait() { return .retired }
    drainerFields = fields
    return nil
  }

  /// Ends the run that a helper drained to its end while the thread that carries the run to its
  /// caller is parked: that thread, released from its wait when the run was quarantined, returns
  /// `outcome` to the caller once its job does; the drain thread's caller gets it at once.
  func endWhileParked(_ outcome: DrainOutcome) {
    // A thread parked in `queue.sync` cannot be released: the call returns when the queue is
    // done. The failure is reported now, as the watchdog reports a blocked job.
    if sidelines.withLock({ $0.syncCallsParked }) > 0,
      let failure = outcome.failure(timeout: timeout, site: site)
    {
      reportIssue("\(failure)", at: site, context: issueContext)
    }
    DrainThread.shared.replace(ifDraining: self, outcome: outcome)
  }
}

/// Starts the helper threads that drain a run while a job of it is parked.
enum ParkedJobs {
  /// Has a helper thread drain `run` from here, until its turn ends or the run does: an idle
  /// helper of an earlier park, or a new one.
  static func startHelper(for run: DeterministicRun) { helpers.drain(run) }

  private static let helpers = HelperThreads()

  /// The helper threads: each drains one run at a time, then waits, idle, for the next park.
  private final class HelperThreads: @unchecked Sendable {
    private let condition = PrivateCondition()
    /// Runs waiting for a helper; guarded by `condition`.
    private var waiting: [DeterministicRun] = []
    /// Helpers waiting for a run, woken or not; guarded by `condition`.
    private var idle = 0
    /// `waiting.count`, read without the lock by an idle helper before it sleeps.
    private let queued = UnsafeMutablePointer<Int64>.allocate(capacity: 1)

    init() { queued.initialize(to: 0) }

    func drain(_ run: DeterministicRun) {
      condition.lock()
      waiting.append(run)
      lockstep_atomic_add(queued, 1)
      let startsOne = idle < waiting.count
      if !startsOne { condition.signal() }
      condition.unlock()
      if startsOne { start() }
    }

    private func start() {
      // Lockstep's own thread, not work of the run: the stand-ins must not see it start as such.
      outsideRun {
        let thread = Thread { [self] in serve() }
        thread.name = "Lockstep parked-job helper"
        thread.stackSize = 8 << 20
        thread.start()
      }
    }

    private func serve() {
      condition.lock()
      while true {
        if !waiting.isEmpty {
          let run = waiting.removeFirst()
          lockstep_atomic_add(queued, -1)
          condition.unlock()
          run.drainAsHelper()
          condition.lock()
          continue
        }
        idle += 1
        condition.unlock()
        BatonSlot.yieldBriefly { lockstep_atomic_load(queued) > 0 }
        condition.lock()
        if waiting.isEmpty { condition.wait() }
        idle -= 1
      }
    }
  }

  /// Runs `body` on a thread of a run as on a thread outside it: what it does (a thread it
  /// starts, a semaphore it signals) is Lockstep's own, not the run's, and this thread is not the
  /// run's drain thread meanwhile.
  static func outsideRun<T>(_ body: () -> T) -> T {
    RunContext.with(lockstep_run_context(), [.drained_run, .run, .outside_token], body)
  }

  /// The report lines of a job parked in `call` with its thread's stack at `frames` (return
  /// addresses): where the code under test called it, and its callers.
  static func siteLines(_ frames: [UInt], call: ParkedWaits.Kind) -> [String] {
    let symbolicated = CodeSymbols.frames(at: frames, as: .returnAddress) ?? []
    let shown = symbolicated.joined().filter { frame in
      frame.hasLocation && !frame.isLibrary && !frame.isThunk
        && !frame.rawName.hasPrefix("$s15LockstepTesting")
        && !frame.image.contains("ispatch")
    }.prefix(3)
    guard let first = shown.first else { return ["blocks in \(call.call)"] }
    return ["blocks in \(call.call) at \(first.text)"] + shown.dropFirst().map { "called from \($0.text)" }
  }

  /// Takes the stand-ins' blocking waits and signals; called once, with the runtime hooks.
  static func install() {
    guard MainQueueHandOff.isInEffect else { return }
    lockstep_blocking_waits_set_observer(
      { run, object, kind, timeout in
        guard let run else { return -1 }
        let owner = Unmanaged<DeterministicRun>.fromOpaque(run).takeUnretainedValue()
        let parkedKind: ParkedWaits.Kind =
          switch kind {
          case Int32(lockstep_blocking_wait_group): .group
          case Int32(lockstep_blocking_wait_sleep): .sleep
          case Int32(lockstep_blocking_wait_run_loop): .runLoop
          default: .semaphore
          }
        let result = owner.park(parkedKind, on: object, timeout: timeout < 0 ? nil : .nanoseconds(timeout))
        return result ?? -1
      },
      { run, token, object, kind in
        guard let object else { return }
        let group = kind == Int32(lockstep_blocking_wait_group)
        let all = group || kind == Int32(lockstep_blocking_wait_condition_broadcast)
        if let run {
          Unmanaged<DeterministicRun>.fromOpaque(run).takeUnretainedValue().signalled(
            object, group: group, all: all, byJob: true)
        } else if let token {
          Unmanaged<OutsideWorkTracking.Token>.fromOpaque(token).takeUnretainedValue().run?
            .signalled(object, group: group, all: all, byJob: false)
        }
      },
      { run, token, object in
        guard let object else { return }
        let owner =
          run.map { Unmanaged<DeterministicRun>.fromOpaque($0).takeUnretainedValue() }
          ?? token.flatMap { Unmanaged<OutsideWorkTracking.Token>.fromOpaque($0).takeUnretainedValue().run }
        owner?.state.withLock { $0.noteCreatedWaitObject(UInt(bitPattern: object)) }
      })
    lockstep_sync_set_observer { run, queue, block, barrier in
      guard let run, let queue else { return false }
      return Unmanaged<DeterministicRun>.fromOpaque(run).takeUnretainedValue().sync(
        on: queue, block, barrier: barrier)
    }
  }
}
