import Dispatch

/// The life of deterministic runs, written once. Every entry point — ``runDeterministically``, its
/// blocking form, ``explore``, the `.deterministic` trait and a linearizability check's sequential
/// replays — goes through here, each run made by its ``RunRecipe``:
///
/// 1. check that a run can start here (the executors can be installed; not inside another run,
///    which is a misuse: ``NestedDeterministicRun``);
/// 2. runs of different tests proceed side by side, each on its own thread (an actor two of them
///    use is theirs one after the other: ``ActorClaims``);
/// 3. for each run: start the body as the run's first task, drain the run, and read what came of
///    it (``RunCompletion``).
///
/// The body is the caller's non-escaping closure, lent to the runs (``lending(_:to:)``,
/// ``LentBody``); the runs' tasks hold no reference to it.
enum RunLifecycle {
  /// Makes the caller's non-escaping `body` escapable for the runs that `operation` performs,
  /// and lends it to them. It runs in the caller's isolation, where `body` was made.
  nonisolated(nonsending) static func lending<Value, T>(
    _ body: () async throws -> Value,
    to operation: nonisolated(nonsending) (LentBody<Value>) async throws -> T
  ) async throws -> T {
    // A local function, not a closure: a closure literal here would be a concurrent
    // (`nonisolated`) closure, and could not use the caller's `body` and `operation`.
    nonisolated(nonsending) func lend(_ body: @escaping () async throws -> Value) async throws -> T {
      try await operation(LentBody(body))
    }
    // The escape check at the end of this scope passes: the runs' tasks never retain the body,
    // not even quarantined ones (`LentBody`).
    return try await withoutActuallyEscaping(body, do: lend)
  }

  /// The blocking form of ``lending(_:to:)``.
  static func lendingBlocking<Value, T>(
    _ body: () async throws -> Value, to operation: (LentBody<Value>) throws -> T
  ) throws -> T {
    try withoutActuallyEscaping(body) { body in try operation(LentBody(body)) }
  }

  /// Checks that a run can start here, then runs `operation`, which performs it. Runs of different
  /// tests proceed side by side; an actor that two of them use is theirs one after the other
  /// (``ActorClaims``).
  nonisolated(nonsending) static func starting<T>(
    at site: CallSite, _ operation: nonisolated(nonsending) () async throws -> T
  ) async throws -> T {
    try checkCanStart()
    return try await started(operation)
  }

  /// ``starting(at:_:)`` once the start was checked: the process's warm-up, then `operation`.
  nonisolated(nonsending) private static func started<T>(
    _ operation: nonisolated(nonsending) () async throws -> T
  ) async throws -> T {
    if !VirtualNow.isInEffect && needsWarmUp() { _ = await warmUpRun().perform(LentBody(warmUp)) }
    await yieldNowAndThen()
    return try await operation()
  }

  /// Gives the calling thread to other work if runs have kept it busy for a while: runs are
  /// drained on the caller's thread, and a test that runs a thousand of them in a row would
  /// otherwise hold a thread of the cooperative pool for as long as a long CPU-bound loop. Called
  /// between runs (and by `explore`, between schedules).
  nonisolated(nonsending) static func yieldNowAndThen() async {
    let now = RealTime.now
    let due = lastYield.withLock { last in
      guard last.duration(to: now) >= DeterministicRun.inlineBudget else { return false }
      last = now
      return true
    }
    if due { await Task.yield() }  // fairness to other work, not synchronisation
  }
  private static let lastYield = Locked(RealTime.now)

  /// ``starting(at:_:)`` for an exploration started at `site`: it takes one of the process's
  /// exploration slots first (``ExplorationSlots``). An exploration that waited ten seconds or
  /// more for one and whose test was then cancelled says so in a warning; a test cancelled while it
  /// waits throws
  /// ``ExplorationWaitCancelled``.
  nonisolated(nonsending) static func exploring<T>(
    at site: CallSite, _ operation: nonisolated(nonsending) () async throws -> T
  ) async throws -> T {
    try checkCanStart()
    let ahead = ExplorationSlots.shared.waiting
    guard let waited = await ExplorationSlots.shared.acquire() else {
      throw ExplorationWaitCancelled(site: site, explorationsAhead: ahead)
    }
    defer {
      ExplorationSlots.shared.release()
      // A wait is said when it mattered: the test ran out of time (its time limit cancelled it).
      if waited >= .seconds(10) && Task.isCancelled {
        reportWarning(
          "The exploration started at \(site) waited \(waited.millisecondsText) for a core, behind "
            + "\(ahead + 1) exploration(s) of other tests: at most one exploration a core runs at "
            + "a time in a process. \(ExplorationWaitCancelled.advice)", at: site, aboutTheProcess: true)
      }
    }
    return try await started(operation)
  }

  /// The blocking form of ``starting(at:_:)``, for synchronous callers.
  static func startingBlocking<T>(at site: CallSite, _ operation: () throws -> T) throws -> T {
    try checkCanStart()
    if !VirtualNow.isInEffect && needsWarmUp() { _ = warmUpRun().performBlocking(LentBody(warmUp)) }
    return try operation()
  }

  /// Whether the process has not run its warm-up yet: `true` for the first run that asks.
  private static func needsWarmUp() -> Bool {
    warmedUp.withLock { warmedUp in
      defer { warmedUp = true }
      return !warmedUp
    }
  }
  private static let warmedUp = Locked(false)

  private static func warmUpRun() -> DeterministicRun { RunRecipe.warmUp.make(at: CallSite()) }

  /// Sleeps in every form once, in a run of its own, before the process's first run that reads the
  /// real clocks (``VirtualNow``): the first sleep of a process is slow (lazily loaded metadata and conformances on the runtime's
  /// sleep path), and a sleep that arrives late would look shorter than it is. Virtual time, so
  /// it takes microseconds.
  @Sendable private static func warmUp() async {
    try? await Task.sleep(for: .milliseconds(1))
    try? await Task.sleep(nanoseconds: 1_000_000)
    try? await Task.sleep(until: .now + .milliseconds(1), clock: .continuous)
    try? await ContinuousClock().sleep(for: .milliseconds(1))
    try? await SuspendingClock().sleep(for: .milliseconds(1))
    await Task { try? await Task.sleep(for: .milliseconds(1)) }.value
  }

  private static func checkCanStart() throws {
    try RuntimeHooks.install()
    if let outer = DrainingRun.current { throw NestedDeterministicRun(outerRun: outer.site) }
  }
}

/// What came of one run: how its drain ended, and what its body returned or threw, if it finished.
struct RunCompletion<Value> {
  let drained: DrainOutcome
  let result: Result<Value, any Error>?
  let timeout: Duration
  let site: CallSite

  var trace: SchedulerTrace { drained.trace }

  /// What went wrong with the run itself (a deadlock, its real-time bound, its step limit), or
  /// `nil` when it finished.
  var runFailure: (any Error)? { drained.failure(timeout: timeout, site: site) }

  /// What ``runDeterministically(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``
  /// returns or throws.
  var outcome: Result<DeterministicOutcome<Value>, any Error> {
    if let runFailure { return .failure(runFailure) }
    guard let result else { return .failure(DeterministicSchedulingUnavailable.bodyDidNotFinish) }
    return result.map { DeterministicOutcome(value: $0, trace: trace) }
  }
}

extension DeterministicRun {
  /// Runs `body` in this run, drained from the caller's isolation by the drain loop
  /// (``drain(from:)``): on the caller's thread while the caller waits when it can — no thread
  /// hand-off, which would be most of what a run costs — as ``DrainTable`` says.
  nonisolated(nonsending) func perform<Value>(_ body: LentBody<Value>) async
    -> RunCompletion<Value>
  {
    let result = start(body)
    let caller = DrainCaller(isolatedTo: #isolation)
    var place = DrainTable.start(caller: caller, gracePeriod: gracePeriod != .zero)
    // A run drains on its caller's thread of the pool only where it may (``InlineDrains``).
    if place == .callerThread && !InlineDrains.take() { place = .thread }
    let drained =
      caller == .otherActor ? await drainOffCallersActor(from: place) : await drain(from: place)
    return RunCompletion(
      drained: drained, result: result.value, timeout: timeout, site: site)
  }

  /// Runs `body` in this run, drained by the calling thread (``drainBlocking(from:)``). A thread
  /// that holds the main actor runs every job itself; any other thread runs main-actor jobs in
  /// blocks on the main queue.
  func performBlocking<Value>(_ body: LentBody<Value>) -> RunCompletion<Value> {
    let result = start(body)
    let caller: DrainCaller = MainActorAccess.isHeldHere ? .blockingHoldingMainActor : .blocking
    let drained = drainBlocking(from: DrainTable.start(caller: caller, gracePeriod: gracePeriod != .zero))
    return RunCompletion(
      drained: drained, result: result.value, timeout: timeout, site: site)
  }

  /// Creates the body's task so that its first job lands in the run. `Task {}` copies the
  /// caller's task-local values (the running test, Lockstep's issue collector).
  private func start<Value>(_ body: LentBody<Value>) -> Locked<Result<Value, any Error>?> {
    let result = Locked<Result<Value, any Error>?>(nil)
    let runBody = body.unowned
    let task = DrainingRun.with(self) {
      Task { [self] in
        let value: Result<Value, any Error>
        do {
          value = .success(
            try await TaskCreationObservation.$observer.withValue(RunTaskCreationObserver()) {
              try await runBody()
            })
        } catch { value = .failure(error) }
        result.withLock { $0 = value }
        CurrentRun.noteFinished()
        markBodyFinished()
      }
    }
    cancelBody = { task.cancel() }
    bodyTaskID = RuntimeHooks.taskID(of: task)
    return result
  }
}
