/// Calls an object from several tasks at once, in generated scenarios, explores the interleavings
/// of each, and reports a run whose results no order of the same calls, one at a time, gives.
///
/// The object itself, called one call at a time, is the specification: it is built afresh for
/// every run by `make`. A failure is reported as a table of the calls and their results, shrunk to
/// the fewest tasks and calls, with the timeline and a token that replays it. See
/// <doc:CheckingAnActorUnderConcurrentCalls>.
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
///   - strategy: The schedules to explore for each scenario, as for ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)``;
///     ``ExplorationStrategy/replay(_:)-(String)`` takes the token a report printed (`C1.…/L2.…`).
///   - scenarios: How many scenarios, and their sizes.
///   - condition: What must explain the results: ``ConsistencyCondition/linearizability`` (an
///     order that respects which call returned before another began) or the weaker
///     ``ConsistencyCondition/quiescentConsistency``.
///   - maxSteps: The most jobs one run may take; a run that takes more fails.
///   - timeout: A real-time bound for each run.
///   - make: Builds the object under test, afresh for each run.
///   - operations: What the tasks may call; each call's result is compared by value, and a
///     thrown error is a result too.
///   - invariant: Checked on the object after every run, once all calls returned; record issues
///     or throw to fail.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func checkLinearizability<Object: Sendable>(
  _ strategy: ExplorationStrategy = .random(schedules: 100),
  scenarios: ConcurrentScenarios = .random(),
  condition: ConsistencyCondition = .linearizability,
  maxSteps: Int = 100_000, timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  of make: @escaping @Sendable () async -> Object,
  operations: [LinearizabilityOperation<Object, Never>],
  invariant: (@Sendable (Object) async throws -> Void)? = nil
) async -> LinearizabilityResult {
  await checking(
    LinearizabilityExploration(
      scenarios: scenarios, condition: condition, maxSteps: maxSteps, timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      make: make, operations: operations, invariant: invariant, model: nil),
    strategy)
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
///   - strategy: The schedules to explore for each scenario.
///   - scenarios: How many scenarios, and their sizes.
///   - condition: What must explain the results.
///   - maxSteps: The most jobs one run may take.
///   - timeout: A real-time bound for each run.
///   - make: Builds the object under test, afresh for each run.
///   - model: The model's state before the first call.
///   - operations: What the tasks may call, each with its model.
///   - invariant: Checked on the object after every run.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func checkLinearizability<Object: Sendable, Model: Hashable & Sendable>(
  _ strategy: ExplorationStrategy = .random(schedules: 100),
  scenarios: ConcurrentScenarios = .random(),
  condition: ConsistencyCondition = .linearizability,
  maxSteps: Int = 100_000, timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  of make: @escaping @Sendable () async -> Object,
  model: Model,
  operations: [LinearizabilityOperation<Object, Model>],
  invariant: (@Sendable (Object) async throws -> Void)? = nil
) async -> LinearizabilityResult {
  await checking(
    LinearizabilityExploration(
      scenarios: scenarios, condition: condition, maxSteps: maxSteps, timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      make: make, operations: operations, invariant: invariant, model: model),
    strategy)
}

/// What both forms do: checks the arguments, then runs the check.
private nonisolated(nonsending) func checking<Object: Sendable, Model: Hashable & Sendable>(
  _ check: LinearizabilityExploration<Object, Model>, _ strategy: ExplorationStrategy
) async -> LinearizabilityResult {
  var check = check
  let site = check.site
  var problems = check.problems(strategy)
  if let reason = RuntimeHooks.unavailability {
    problems.append("deterministic scheduling is unavailable: \(reason)")
  }
  guard problems.isEmpty, let setup = check.setup else {
    return notRun(
      "checkLinearizability \(strategy): \(problems.joined(separator: "; ")). Nothing ran.",
      check.setup, at: site)
  }
  HashingDeterminism.warnOnceIfNotDeterministic(at: site)
  let outcome: LinearizabilityOutcome
  do {
    let ran = await FailureCapture.capturing { capture in
      do {
        return Result<LinearizabilityOutcome, any Error>.success(try await check.run(setup, capture))
      } catch {
        return .failure(error)
      }
    }
    outcome = try ran.get()
  } catch let error as NestedDeterministicRun {
    return notRun(
      "checkLinearizability cannot run inside another deterministic run (the one started at "
        + "\(error.outerRun)): it runs its scenarios on the scheduler itself. Call it from a test "
        + "that is not under the .deterministic trait or withDeterministicScheduling. Nothing ran.",
      setup, at: site)
  } catch let error as ExplorationWaitCancelled {
    return notRun("\(error)", setup, at: site)
  } catch {
    return notRun("checkLinearizability could not run: \(error)", setup, at: site)
  }
  let summary = ExplorationSummaryReport.deliver(
    outcome.summary, setup: setup, elapsed: outcome.elapsed, at: site, subject: "checkLinearizability",
    failureToken: outcome.result.failure?.token, failureScenario: outcome.result.failure?.scenario)
  if let problem = summary.problem { reportWarning(problem, at: site) }
  if let problem = outcome.result.problem { reportIssue(problem, at: site) }
  if let failure = outcome.result.failure {
    let picture = TimelinePictureReport.deliver(
      failure.timelineSVG, label: TimelinePictureReport.label(at: site), subject: "run", at: site)
    reportIssue(failure.description + "\n" + picture, at: site)
  }
  return outcome.result
}

/// Records `problem`, which stopped a check before it ran, and returns the result that carries it
/// (and its JSON summary, where summaries are written).
private func notRun(_ problem: String, _ setup: ExplorationSetup?, at site: CallSite)
  -> LinearizabilityResult
{
  reportIssue(problem, at: site)
  if let setup {
    let summary = ExplorationSummaryReport.deliver(
      .notRun(setup.strategy, cancellation: .none, problem: problem), setup: setup, elapsed: .zero,
      at: site, subject: "checkLinearizability")
    if let problem = summary.problem { reportWarning(problem, at: site) }
  }
  return LinearizabilityResult(
    scenariosRun: 0, schedulesRun: 0, failure: nil, ranOutOfTime: false, problem: problem)
}
