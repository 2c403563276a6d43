/// Calls an object from several tasks at once on real threads, in generated scenarios each run
/// many times, and reports a run whose results no order of the same calls, one at a time, gives:
/// the stress mode of checking linearizability.
///
/// Each run builds a fresh object, makes the scenario's calls before, starts one plain task per
/// column of the scenario on the normal executors, releases them together, then makes the calls
/// after and checks the invariant; its calls' results and their order in real time are judged as
/// under the deterministic scheduler. A scenario runs until `runs` of its runs **overlapped** — two
/// of its tasks had calls in flight at the same moment — making at most 20 runs for each one asked
/// for, within `timeout`; a scenario that stops short without failing is a problem, not a pass. Use it for code whose races Lockstep's scheduler cannot see:
/// atomics, `Synchronization.Mutex`, or any lock on Apple platforms. A failure is reported with
/// its table of calls and how many runs failed, without a timeline or a replay token. See
/// <doc:CheckingAnActorUnderConcurrentCalls#Stress-mode-on-real-threads>.
///
/// ```swift
/// @Test func seatsAreLinearizableOnRealThreads() async {
///   await checkLinearizability(
///     .stress(runs: 1_000),
///     of: { SeatReservations(seats: 2) },
///     operations: [
///       .call("reserve") { $0.reserve() },
///       .call("free") { $0.free },
///     ])
/// }
/// ```
///
/// - Parameters:
///   - mode: How many times each scenario runs: ``StressMode/stress(runs:)``.
///   - scenarios: How many scenarios, and their sizes.
///   - condition: What must explain the results: ``ConsistencyCondition/linearizability`` or
///     ``ConsistencyCondition/quiescentConsistency``.
///   - timeout: A real-time bound for each run, and for each scenario's runs together (scaled by
///     `LOCKSTEP_TIMEOUT_SCALE`); a run that outlasts it is reported with the calls still in
///     flight, and the check stops; a scenario whose runs outlast it stops making runs.
///   - make: Builds the object under test, afresh for each run.
///   - operations: What the tasks may call; each call's result is compared by value, and a
///     thrown error is a result too.
///   - invariant: Checked on the object after every run, once all calls returned; record issues
///     or throw to fail.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func checkLinearizability<Object: Sendable>(
  _ mode: StressMode,
  scenarios: ConcurrentScenarios = .random(),
  condition: ConsistencyCondition = .linearizability,
  timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  of make: @escaping @Sendable () async -> Object,
  operations: [LinearizabilityOperation<Object, Never>],
  invariant: (@Sendable (Object) async throws -> Void)? = nil
) async -> LinearizabilityStressResult {
  await checkingUnderStress(
    LinearizabilityStressCheck(
      mode: mode, scenarios: scenarios, condition: condition,
      timeout: FailureBoundScale.scaled(timeout),
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      make: make, operations: operations, invariant: invariant, model: nil,
      environment: StressCount.current))
}

/// Like ``checkLinearizability(_:scenarios:condition:timeout:fileID:filePath:line:column:of:operations:invariant:)``,
/// comparing the results with a sequential model: a state that starts at `model`, and what each
/// operation does to it.
///
/// ```swift
/// await checkLinearizability(
///   .stress(runs: 1_000), of: { SeatReservations(seats: 2) }, model: 2,
///   operations: [
///     .call("reserve") { $0.reserve() } model: { free in
///       guard free > 0 else { return false }
///       free -= 1
///       return true
///     }
///   ])
/// ```
///
/// - Parameters:
///   - mode: How many times each scenario runs.
///   - scenarios: How many scenarios, and their sizes.
///   - condition: What must explain the results.
///   - timeout: A real-time bound for each run, and for each scenario's runs together.
///   - make: Builds the object under test, afresh for each run.
///   - model: The model's state before the first call.
///   - operations: What the tasks may call, each with its model.
///   - invariant: Checked on the object after every run.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func checkLinearizability<Object: Sendable, Model: Hashable & Sendable>(
  _ mode: StressMode,
  scenarios: ConcurrentScenarios = .random(),
  condition: ConsistencyCondition = .linearizability,
  timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  of make: @escaping @Sendable () async -> Object,
  model: Model,
  operations: [LinearizabilityOperation<Object, Model>],
  invariant: (@Sendable (Object) async throws -> Void)? = nil
) async -> LinearizabilityStressResult {
  await checkingUnderStress(
    LinearizabilityStressCheck(
      mode: mode, scenarios: scenarios, condition: condition,
      timeout: FailureBoundScale.scaled(timeout),
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      make: make, operations: operations, invariant: invariant, model: model,
      environment: StressCount.current))
}

/// What both stress forms do: checks the arguments, runs the check, and records what it found.
private nonisolated(nonsending) func checkingUnderStress<Object: Sendable, Model: Hashable & Sendable>(
  _ check: LinearizabilityStressCheck<Object, Model>
) async -> LinearizabilityStressResult {
  let problems = check.problems()
  guard problems.isEmpty else {
    let problem =
      "checkLinearizability(\(check.title)): \(problems.joined(separator: "; ")). Nothing ran."
    reportIssue(problem, at: check.site)
    return LinearizabilityStressResult(
      scenariosRun: 0, runs: 0, overlappingRuns: 0, runsPerScenario: check.runs, failure: nil,
      problem: problem)
  }
  let result = await FailureCapture.capturing { capture in await check.run(capture) }
  if let problem = result.problem { reportIssue(problem, at: check.site) }
  if let failure = result.failure { reportIssue(failure.description, at: check.site) }
  return result
}
