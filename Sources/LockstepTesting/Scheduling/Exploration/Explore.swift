#if canImport(Testing)
  import Testing
#endif

/// Runs `body` again and again on the deterministic scheduler, each time in another order of its
/// ready jobs, and reports the first schedule that fails — shrunk to few preemptions, as a
/// timeline, with a token that replays it exactly.
///
/// A schedule fails when its body records an issue, throws, deadlocks or runs more than
/// `maxSteps` jobs. The body runs once per schedule, so it builds what it uses afresh. Misuse is
/// reported at this call, and nothing runs. See <doc:FindingRaces>.
///
/// ```swift
/// @Test func newestReloadAlwaysWins() async {
///   await explore(.pct(schedules: 500, depth: 2)) {
///     let loader = FakeBookLoader()                  // answers every request at once
///     let model = await BookScreenModel(loader: loader, tasks: LiveTaskFactory())
///     async let first: Void = model.reload(id: 1)
///     async let second: Void = model.reload(id: 2)
///     _ = await (first, second)
///     let book = await model.book
///     #expect(book == nil || book?.id == await model.lastRequestedID)
///   }
/// }
/// ```
///
/// - Parameters:
///   - strategy: Which schedules to run: ``ExplorationStrategy/random(schedules:seed:)``,
///     ``ExplorationStrategy/pct(schedules:depth:seed:)``,
///     ``ExplorationStrategy/exhaustive(maxPreemptions:limit:)``,
///     ``ExplorationStrategy/replay(_:)-(String)`` or
///     ``ExplorationStrategy/replayUpToCrash(_:atStep:)``.
///   - cancellation: Whether to also explore cancelling a task at a Lockstep wait.
///   - maxSteps: The most jobs one schedule may run; a schedule that runs longer fails.
///   - timeout: A real-time bound for each schedule.
///   - gracePeriod: How long each schedule waits in real time for a job from outside it (a
///     Dispatch source, a network reply, a continuation resumed on another thread) before it is
///     reported as a deadlock; zero by default, as for
///     ``withDeterministicScheduling(seed:timeout:gracePeriod:fileID:filePath:line:column:_:)``.
///   - body: One run of the code under test, with its checks: an ordinary, non-escaping closure
///     that runs in your isolation, once per schedule.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func explore(
  _ strategy: ExplorationStrategy, cancellation: CancellationInjection = .none,
  maxSteps: Int = 100_000, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Void
) async -> ExplorationResult {
  await explore(
    strategy, pinned: [], cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
    gracePeriod: gracePeriod, fileID: fileID, filePath: filePath, line: line, column: column, body)
}

/// Replays the `pinned` tokens first — the schedules of races found and fixed — then explores
/// new schedules as ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)``
/// does.
///
/// A pinned token that fails again is the failure; one that no longer replays its schedule is
/// reported as stale. See <doc:FindingRaces#Keep-a-fixed-race-pinned>.
///
/// ```swift
/// @Test func theNewestReloadAlwaysWins() async {
///   await explore(.pct(schedules: 200, depth: 2), pinned: ["L2.AQAIAkRVAgAA-vMU9srOaw"]) {
///     await twoReloads()
///   }
/// }
/// ```
///
/// - Parameters:
///   - strategy: Which new schedules to run after the pinned ones.
///   - pinned: Replay tokens (`"L2.…"`, as a report printed them), replayed first, in order.
///   - cancellation: Whether to also explore cancelling a task at a Lockstep wait.
///   - maxSteps: The most jobs one schedule may run.
///   - timeout: A real-time bound for each schedule.
///   - gracePeriod: How long each schedule waits in real time for a job from outside it.
///   - body: One run of the code under test, with its checks.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func explore(
  _ strategy: ExplorationStrategy, pinned: [String], cancellation: CancellationInjection = .none,
  maxSteps: Int = 100_000, timeout: Duration = .seconds(60), gracePeriod: Duration = .zero,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Void
) async -> ExplorationResult {
  let setup = ExplorationSetup(strategy: strategy, pinned: pinned, environment: .current)
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  var problems = setup.problems
  problems += ExplorationSetup.runBoundProblems(
    maxSteps: maxSteps, timeout: timeout, gracePeriod: gracePeriod)
  if let reason = RuntimeHooks.unavailability {
    problems.append("deterministic scheduling is unavailable: \(reason)")
  }
  guard problems.isEmpty else {
    return notRun(
      "explore \(strategy): \(problems.joined(separator: "; ")). Nothing ran.", setup, cancellation,
      at: site)
  }
  HashingDeterminism.warnOnceIfNotDeterministic(at: site)
  var result: ExplorationResult
  let elapsed: Duration
  let misuse: String?
  let stale: [String]
  do {
    // Every schedule runs the one lent body (the runs' tasks hold no reference to it, not even
    // quarantined ones); the explorer lets go of it when the lending ends.
    (result, misuse, stale, elapsed) = try await RunLifecycle.lending(body) { body in
      let explorer = Explorer(
        setup: setup, cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
        gracePeriod: gracePeriod, site: site, body: body)
      let result = try await RunLifecycle.exploring(at: site) {
        await FailureCapture.capturing { capture in await explorer.run(capture) }
      }
      return (result, explorer.misuse, explorer.staleReports, explorer.elapsed)
    }
  } catch let error as NestedDeterministicRun {
    return notRun(
      "explore \(strategy) cannot run inside another deterministic run (the one started at "
        + "\(error.outerRun)): "
        + "exploration runs the body on the scheduler itself, once per schedule. Call explore "
        + "from a test that is not under the .deterministic trait or withDeterministicScheduling. "
        + "Nothing ran.", setup, cancellation, at: site)
  } catch let error as ExplorationWaitCancelled {
    return notRun("\(error)", setup, cancellation, at: site)
  } catch {
    return notRun("explore could not run: \(error)", setup, cancellation, at: site)
  }
  let recorded = (misuse.map { [$0] } ?? []) + stale
  if !recorded.isEmpty { result.problem = recorded.joined(separator: "\n") }
  let summary = ExplorationSummaryReport.deliver(
    result, setup: setup, elapsed: elapsed, at: site)
  if let problem = summary.problem { reportWarning(problem, at: site) }
  for problem in recorded { reportIssue(problem, at: site) }
  if let failure = result.failure { report(failure, at: site) }
  if result.passed && result.hadNothingToExplore {
    reportWarning("explore \(result.title): \(ExplorationResult.nothingToExplore)", at: site)
  }
  return result
}

/// Records `problem`, which stopped an exploration before it ran, and returns the result that
/// carries it (and its JSON summary, where summaries are written).
private func notRun(
  _ problem: String, _ setup: ExplorationSetup, _ cancellation: CancellationInjection,
  at site: CallSite
) -> ExplorationResult {
  let result = ExplorationResult.notRun(setup.strategy, cancellation: cancellation, problem: problem)
  let summary = ExplorationSummaryReport.deliver(result, setup: setup, elapsed: .zero, at: site)
  reportIssue(problem, at: site)
  if let problem = summary.problem { reportWarning(problem, at: site) }
  return result
}

extension ExplorationResult {
  /// The result of an exploration that ran nothing.
  static func notRun(
    _ strategy: ExplorationStrategy, cancellation: CancellationInjection, problem: String
  ) -> Self {
    ExplorationResult(
      strategy: strategy.description, schedulesRun: 0, isComplete: false, distinctSchedules: 0,
      mostChoicePoints: 0, cancellationPoints: 0, failure: nil, divergence: nil,
      injectsCancellation: cancellation.enabled, isReplay: strategy.isReplay, problem: problem)
  }
}

private func report(_ failure: ExplorationFailure, at site: CallSite) {
  let picture = TimelinePictureReport.deliver(
    failure.timelineSVG, label: TimelinePictureReport.label(at: site), at: site)
  reportIssue(failure.description + "\n" + picture, at: site)
  #if canImport(Testing)
    if IssueRouting.collector == nil && Test.current != nil {
      Attachment.record(
        "\(failure.timeline)\n", named: "lockstep-timeline.txt",
        sourceLocation: SourceLocation(
          fileID: "\(site.fileID)", filePath: "\(site.filePath)", line: Int(site.line),
          column: Int(site.column)))
    }
  #endif
}
