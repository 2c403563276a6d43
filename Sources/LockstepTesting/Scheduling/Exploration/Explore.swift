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
/// When a schedule fails, the failure is reported once, at this call, with the failures of that
/// schedule, its replay token and its timeline (under Swift Testing the timeline is also attached
/// to the test); the failures of the schedules themselves are held back. Under XCTest, assertion
/// failures of the failing schedules are reported as they happen as well — XCTest cannot hold
/// them back.
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
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  let result: ExplorationResult
  let misuse: String?
  do {
    // Every schedule runs the one lent body (a schedule that quarantines its tasks gives up
    // their references); the explorer lets go of it when the lending ends.
    (result, misuse) = try await RunLifecycle.lending(body) { body in
      let explorer = Explorer(
        strategy: strategy, cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
        site: site, body: body)
      let result = try await RunLifecycle.exclusively {
        await FailureCapture.capturing { capture in await explorer.run(capture) }
      }
      return (result, explorer.misuse)
    }
  } catch {
    reportIssue("explore could not run: \(error)", at: site)
    return ExplorationResult(
      strategy: strategy.description, schedulesRun: 0, isComplete: false, cancellationPoints: 0,
      failure: nil, injectsCancellation: cancellation.enabled)
  }
  if let misuse { reportIssue(misuse, at: site) }
  if let failure = result.failure { report(failure, at: site) }
  return result
}

private func report(_ failure: ExplorationFailure, at site: CallSite) {
  reportIssue(failure.description, at: site)
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
