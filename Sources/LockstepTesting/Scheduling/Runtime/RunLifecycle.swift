/// The life of deterministic runs, written once. Every entry point — ``runDeterministically``, its
/// blocking form, ``explore`` and the `.deterministic` trait — goes through here:
///
/// 1. check that a run can start here (the executors can be installed; not inside another run,
///    which is a misuse: ``NestedDeterministicRun``);
/// 2. take the process's run lock, so that runs never overlap (``RunSerializer``);
/// 3. for each run: start the body as the run's first task, drain the run, and read what came of
///    it (``RunCompletion``).
enum RunLifecycle {
  /// Checks that runs can start here, then runs `operation` holding the process's run lock.
  static func exclusively<T>(_ operation: () async throws -> T) async throws -> T {
    try checkCanStart()
    await RunSerializer.shared.acquire()
    defer { RunSerializer.shared.release() }
    return try await operation()
  }

  /// The blocking form of ``exclusively(_:)``, for synchronous callers.
  static func exclusivelyBlocking<T>(_ operation: () throws -> T) throws -> T {
    try checkCanStart()
    RunSerializer.shared.acquireBlocking()
    defer { RunSerializer.shared.release() }
    return try operation()
  }

  private static func checkCanStart() throws {
    try RuntimeHooks.install()
    if let outer = DrainThread.current { throw NestedDeterministicRun(outerRun: outer.site) }
  }
}

/// What came of one run: how its drain ended, and what its body returned or threw, if it finished.
struct RunCompletion<Value: Sendable> {
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
    guard let result else {
      return .failure(
        DeterministicSchedulingUnavailable(reason: "the run finished without its body finishing"))
    }
    return result.map { DeterministicOutcome(value: $0, trace: trace) }
  }
}

extension DeterministicRun {
  /// Runs `body` in this run, drained by the process's drain thread.
  func perform<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async
    -> RunCompletion<Value>
  {
    let result = start(body)
    let drained = await DrainWorker.shared.drain(self)
    return RunCompletion(drained: drained, result: result.value, timeout: timeout, site: site)
  }

  /// Runs `body` in this run, drained by the calling thread.
  func performBlocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value)
    -> RunCompletion<Value>
  {
    let result = start(body)
    let drained = drain()
    return RunCompletion(drained: drained, result: result.value, timeout: timeout, site: site)
  }

  /// Creates the body's task so that its first job lands in the run. `Task {}` copies the
  /// caller's task-local values (the running test, Lockstep's issue collector).
  private func start<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value)
    -> Locked<Result<Value, any Error>?>
  {
    let result = Locked<Result<Value, any Error>?>(nil)
    let task = DrainThread.with(self) {
      Task { [self] in
        let value: Result<Value, any Error>
        do { value = .success(try await body()) } catch { value = .failure(error) }
        result.withLock { $0 = value }
        CurrentRun.noteFinished()
        markBodyFinished()
      }
    }
    cancelBody = { task.cancel() }
    return result
  }
}
