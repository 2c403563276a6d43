/// Calls an object from several tasks at once, in generated scenarios, runs each scenario many
/// times, and reports a run whose results no order of the same calls, one at a time, gives.
///
/// The object itself, called one call at a time, is the specification: it is built afresh for
/// every run by `make`. The mode says how the scenarios run:
///
/// - an ``ExplorationStrategy`` (the default, `.random(schedules: 100)`) explores the interleavings
///   of each scenario under the deterministic scheduler; a failure is reported as a table of the
///   calls and their results, shrunk to the fewest tasks and calls, with the timeline and a token
///   that replays it, in a ``LinearizabilityResult``.
/// - ``StressMode/stress(runs:)`` runs each scenario many times on real threads, for code whose
///   races the scheduler cannot see; a failure has its table and how many runs failed, in a
///   ``LinearizabilityStressResult``.
///
/// See <doc:CheckingAnActorUnderConcurrentCalls>.
///
/// ```swift
/// @Test func counterIsLinearizable() async {
///   await checkLinearizability(
///     of: { Counter() },
///     operations: [
///       .call("increment") { await $0.increment() },
///       .call("value") { await $0.value },
///     ])
/// }
/// ```
///
/// - Parameters:
///   - mode: The schedules to explore for each scenario, as for ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)``
///     (``ExplorationStrategy/replay(_:)-(String)`` takes the token a report printed, `C1.…/L2.…`),
///     or ``StressMode/stress(runs:)`` to run each scenario on real threads.
///   - scenarios: How many scenarios, and their sizes.
///   - condition: What must explain the results: ``ConsistencyCondition/linearizability`` (an
///     order that respects which call returned before another began) or the weaker
///     ``ConsistencyCondition/quiescentConsistency``.
///   - maxSteps: The most jobs one run may take under the scheduler, 100,000 if left out; a run
///     that takes more fails. Stress runs have no jobs to count: leave it out there.
///   - timeout: A real-time bound for each run; in stress mode also for each scenario's runs
///     together, scaled by `LOCKSTEP_TIMEOUT_SCALE`.
///   - make: Builds the object under test, afresh for each run.
///   - operations: What the tasks may call; each call's result is compared by value, and a
///     thrown error is a result too.
///   - invariant: Checked on the object after every run, once all calls returned; record issues
///     or throw to fail.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func checkLinearizability<Mode: LinearizabilityMode, Object: Sendable>(
  _ mode: Mode = ExplorationStrategy.random(schedules: 100),
  scenarios: ConcurrentScenarios = .random(),
  condition: ConsistencyCondition = .linearizability,
  maxSteps: Int? = nil, timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  of make: @escaping @Sendable () async -> Object,
  operations: [LinearizabilityOperation<Object, Never>],
  invariant: (@Sendable (Object) async throws -> Void)? = nil
) async -> Mode.CheckResult {
  await mode._check(
    LinearizabilityCheck(
      scenarios: scenarios, condition: condition, maxSteps: maxSteps, timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      make: make, operations: operations, invariant: invariant, model: nil))
}

/// Like ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``,
/// comparing the results with a sequential model: a state that starts at `model`, and what each
/// operation does to it.
///
/// ```swift
/// await checkLinearizability(
///   of: { Account(balance: 100) }, model: 100,
///   operations: [
///     .call("withdraw", with: [30, 80]) { try await $0.withdraw($1) } model: { balance, amount in
///       guard balance >= amount else { throw Overdrawn() }
///       balance -= amount
///       return balance
///     }
///   ])
/// ```
///
/// - Parameters:
///   - mode: The schedules to explore for each scenario, or ``StressMode/stress(runs:)``.
///   - scenarios: How many scenarios, and their sizes.
///   - condition: What must explain the results.
///   - maxSteps: The most jobs one run may take under the scheduler, 100,000 if left out.
///   - timeout: A real-time bound for each run.
///   - make: Builds the object under test, afresh for each run.
///   - model: The model's state before the first call.
///   - operations: What the tasks may call, each with its model.
///   - invariant: Checked on the object after every run.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func checkLinearizability<
  Mode: LinearizabilityMode, Object: Sendable, Model: Hashable & Sendable
>(
  _ mode: Mode = ExplorationStrategy.random(schedules: 100),
  scenarios: ConcurrentScenarios = .random(),
  condition: ConsistencyCondition = .linearizability,
  maxSteps: Int? = nil, timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  of make: @escaping @Sendable () async -> Object,
  model: Model,
  operations: [LinearizabilityOperation<Object, Model>],
  invariant: (@Sendable (Object) async throws -> Void)? = nil
) async -> Mode.CheckResult {
  await mode._check(
    LinearizabilityCheck(
      scenarios: scenarios, condition: condition, maxSteps: maxSteps, timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      make: make, operations: operations, invariant: invariant, model: model))
}
