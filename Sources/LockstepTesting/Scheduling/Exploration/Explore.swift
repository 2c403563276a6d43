#if canImport(Testing)
  import Testing
#endif

/// Runs `body` again and again on the deterministic scheduler, each time in another order of its
/// ready jobs, and reports the first schedule that fails — shrunk to few preemptions, as a
/// timeline, with a token that replays it exactly.
///
/// A schedule fails when its body records an issue (`#expect`, `Issue.record`, `XCTAssert…`, a
/// Lockstep report), throws, or deadlocks. The body must build everything it uses (the model,
/// its fakes) afresh: it runs once per schedule. Write the invariant, not the order:
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
/// Jobs still ready when the body returns run as part of the schedule; a task still sleeping or
/// suspended then is not explored further — it goes on, if ever, on the normal executors. Await
/// or cancel such tasks in the body.
///
/// When a schedule fails, it is shrunk to a simpler schedule that fails the same way (the first
/// failure at the same place), replayed once from its token, and reported once, at this call,
/// with the failures of that schedule, its replay token, whether the replay reproduced it, and its
/// timeline (under Swift Testing the timeline and its picture, `lockstep-timeline.svg`, are also
/// attached to the test; with `LOCKSTEP_REPORTS` set, the picture is written there); the failures of the
/// schedules themselves are held back. Under XCTest, assertion failures of the failing schedules
/// are reported as they happen as well — XCTest cannot hold them back.
///
/// Misuse is reported at this call and nothing runs: a strategy parameter that cannot work
/// (`.random(schedules: 0)`, `.pct(depth: 0)`, `.exhaustive(maxPreemptions: -1)`, …), a `maxSteps`
/// below 1, or a call inside another deterministic run (the `.deterministic` trait). A body in
/// which no two jobs are ever ready at once has nothing to explore; `explore` says so, as a
/// warning, and ``ExplorationResult/mostChoicePoints`` is zero.
///
/// If the code under test crashes the process (a trap such as "Can't removeFirst from an empty
/// Set"), `explore` writes to standard error, before the process dies, which exploration and
/// which schedule ran, and a token that replays the choices made up to the crash.
///
/// The environment of the test process scales the exploration without editing the test, and the
/// report says what it changed: `LOCKSTEP_EXPLORE_SCALE` multiplies the schedules,
/// `LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS` deepens an exhaustive search, `LOCKSTEP_EXPLORE_TIME` is a
/// time budget (as ``ExplorationStrategy/forAtMost(_:)``), and `LOCKSTEP_SHARD=k/n` explores only
/// this process's part (``ExplorationShard``); see <doc:FindingRaces#Explore-at-CI-scale>. A
/// value that cannot be read is reported here, and nothing runs. Once a race is fixed, keep its
/// token with ``explore(_:pinned:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)``:
/// it is replayed first on every run.
///
/// - Parameters:
///   - strategy: Which schedules to run: ``ExplorationStrategy/random(schedules:seed:)``,
///     ``ExplorationStrategy/pct(schedules:depth:seed:)``,
///     ``ExplorationStrategy/exhaustive(maxPreemptions:limit:)`` or
///     ``ExplorationStrategy/replay(_:)-(String)``.
///   - cancellation: Whether to also explore cancelling a task at a Lockstep wait.
///   - maxSteps: The most jobs one schedule may run; a schedule that runs longer fails (a
///     livelock: tasks that keep each other busy forever).
///   - timeout: A real-time bound for each schedule.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path; leave the default.
///   - line: The caller's line; leave the default.
///   - column: The caller's column; leave the default.
///   - body: One run of the code under test, with its checks: an ordinary, non-escaping closure
///     that runs in your isolation and may assign to your locals (it runs once per schedule, one
///     schedule after another, each time as a task of that schedule's run).
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func explore(
  _ strategy: ExplorationStrategy, cancellation: CancellationInjection = .none,
  maxSteps: Int = 100_000, timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Void
) async -> ExplorationResult {
  await exploring(
    ExplorationSetup(strategy: strategy, pinned: [], environment: .current),
    cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), body)
}

/// Replays the `pinned` tokens first — the schedules of races found and fixed — then explores
/// new schedules as ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)``
/// does.
///
/// Once a race is fixed, keep its token in the test: every run then replays that exact schedule
/// before it looks for new ones, so the race cannot come back unnoticed. The failure report
/// prints the line to add (``ExplorationFailure/pinnedLine``):
///
/// ```swift
/// @Test func theNewestReloadAlwaysWins() async {
///   await explore(.pct(schedules: 200, depth: 2), pinned: ["L2.AQAIAkRVAgAA-vMU9srOaw"]) {
///     await twoReloads()
///   }
/// }
/// ```
///
/// Each pinned token is replayed as ``ExplorationStrategy/replay(_:)-(String)`` replays it, in
/// the order given, in every shard (`LOCKSTEP_SHARD`), and is not scaled by the environment:
///
/// - A token that replays its schedule and passes is a regression check that held
///   (``ExplorationResult/pinnedPassed``).
/// - A token that fails again is reported as the failure — the race it was pinned for is back
///   (``ExplorationFailure/pinnedToken``) — and nothing new is explored.
/// - A token that no longer replays its schedule (the code under test changed, so the run left
///   the schedule the token recorded; see ``ReplayDivergence``) but passes is *stale*: it is
///   reported at this call, with where it diverged, rather than passing in silence
///   (``ExplorationResult/stalePinnedTokens``); remove it, or pin the token of a new failure. The
///   exploration still runs.
///
/// Text that is not a token is reported at this call, and nothing runs.
///
/// - Parameters:
///   - strategy: Which new schedules to run after the pinned ones.
///   - pinned: Replay tokens (`"L2.…"`, as a report printed them), replayed first, in order.
///   - cancellation: Whether to also explore cancelling a task at a Lockstep wait.
///   - maxSteps: The most jobs one schedule may run.
///   - timeout: A real-time bound for each schedule.
///   - fileID: The caller's file ID, where a failure is reported; leave the default.
///   - filePath: The caller's file path; leave the default.
///   - line: The caller's line; leave the default.
///   - column: The caller's column; leave the default.
///   - body: One run of the code under test, with its checks.
/// - Returns: What ran and the failure, if any.
@discardableResult
public nonisolated(nonsending) func explore(
  _ strategy: ExplorationStrategy, pinned: [String], cancellation: CancellationInjection = .none,
  maxSteps: Int = 100_000, timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Void
) async -> ExplorationResult {
  await exploring(
    ExplorationSetup(strategy: strategy, pinned: pinned, environment: .current),
    cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), body)
}

/// What both forms of `explore` do.
private nonisolated(nonsending) func exploring(
  _ setup: ExplorationSetup, cancellation: CancellationInjection, maxSteps: Int,
  timeout: Duration, site: CallSite, _ body: () async throws -> Void
) async -> ExplorationResult {
  var problems = setup.problems
  if maxSteps < 1 { problems.append("maxSteps: \(maxSteps) must be at least 1") }
  if timeout <= .zero { problems.append("timeout: \(timeout.lockstepText) must be more than zero") }
  let strategy = setup.strategy
  guard problems.isEmpty else {
    reportIssue(
      "explore \(strategy): \(problems.joined(separator: "; ")). Nothing ran.", at: site)
    return .notRun(strategy, cancellation: cancellation)
  }
  HashingDeterminism.warnOnceIfNotDeterministic(at: site)
  let result: ExplorationResult
  let misuse: String?
  let stale: [String]
  do {
    // Every schedule runs the one lent body (a schedule that quarantines its tasks gives up
    // their references); the explorer lets go of it when the lending ends.
    (result, misuse, stale) = try await RunLifecycle.lending(body) { body in
      let explorer = Explorer(
        setup: setup, cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
        site: site, body: body)
      let result = try await RunLifecycle.exclusively {
        await FailureCapture.capturing { capture in await explorer.run(capture) }
      }
      return (result, explorer.misuse, explorer.staleReports)
    }
  } catch let error as NestedDeterministicRun {
    reportIssue(
      "explore \(strategy) cannot run inside another deterministic run (the one started at "
        + "\(error.outerRun)): "
        + "exploration runs the body on the scheduler itself, once per schedule. Call explore "
        + "from a test that is not under the .deterministic trait or withDeterministicScheduling. "
        + "Nothing ran.", at: site)
    return .notRun(strategy, cancellation: cancellation)
  } catch {
    reportIssue("explore could not run: \(error)", at: site)
    return .notRun(strategy, cancellation: cancellation)
  }
  if let misuse { reportIssue(misuse, at: site) }
  for report in stale { reportIssue(report, at: site) }
  if let failure = result.failure { report(failure, at: site) }
  if result.failure == nil && result.hadNothingToExplore {
    reportWarning("explore \(result.title): \(ExplorationResult.nothingToExplore)", at: site)
  }
  return result
}

extension ExplorationResult {
  /// The result of an exploration that ran nothing.
  fileprivate static func notRun(_ strategy: ExplorationStrategy, cancellation: CancellationInjection)
    -> Self
  {
    ExplorationResult(
      strategy: strategy.description, schedulesRun: 0, isComplete: false, distinctSchedules: 0,
      mostChoicePoints: 0, cancellationPoints: 0, failure: nil, divergence: nil,
      injectsCancellation: cancellation.enabled, isReplay: strategy.isReplay)
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
