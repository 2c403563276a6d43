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
///   - body: One run of the code under test, with its checks.
/// - Returns: What ran and the failure, if any.
@discardableResult
public func explore(
  _ strategy: ExplorationStrategy, cancellation: CancellationInjection = .none,
  maxSteps: Int = 100_000, timeout: Duration = .seconds(60),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: @escaping @Sendable () async throws -> Void
) async -> ExplorationResult {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  do {
    try checkCanStartRun()
  } catch {
    reportIssue("explore could not run: \(error)", at: site)
    return ExplorationResult(
      strategy: strategy.description, schedulesRun: 0, isComplete: false, cancellationPoints: 0,
      failure: nil, injectsCancellation: cancellation.enabled)
  }
  await RunSerializer.shared.acquire()
  let explorer = Explorer(
    strategy: strategy, cancellation: cancellation, maxSteps: maxSteps, timeout: timeout,
    site: site, body: body)
  let result = await FailureCapture.capturing { capture in await explorer.run(capture) }
  RunSerializer.shared.release()
  if let message = explorer.misuse { reportIssue(message, at: site) }
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

/// The outcome of one schedule.
struct ScheduleOutcome: Sendable {
  let failures: [String]
  let trace: SchedulerTrace
  let record: ScheduleRecord
  let cancelAtSuspension: Int?
  let diverged: Bool

  var failed: Bool { !failures.isEmpty }
  /// Smaller is simpler.
  var complexity: (Int, Int, Int) {
    (record.preemptions, record.contextSwitches, cancelAtSuspension == nil ? 0 : 1)
  }
}

/// Runs the schedules of one exploration.
final class Explorer: @unchecked Sendable {
  let strategy: ExplorationStrategy
  let cancellation: CancellationInjection
  let maxSteps: Int
  let timeout: Duration
  let site: CallSite
  let body: @Sendable () async throws -> Void
  /// A problem with how explore was called, reported after the exploration.
  private(set) var misuse: String?
  /// The most choice points and Lockstep waits a schedule has had so far.
  private var longestSchedule = 0
  private var mostSuspensions = 0

  init(
    strategy: ExplorationStrategy, cancellation: CancellationInjection, maxSteps: Int,
    timeout: Duration, site: CallSite, body: @escaping @Sendable () async throws -> Void
  ) {
    self.strategy = strategy
    self.cancellation = cancellation
    self.maxSteps = maxSteps
    self.timeout = timeout
    self.site = site
    self.body = body
  }

  func run(_ capture: FailureCapture) async -> ExplorationResult {
    switch strategy.kind {
    case .replay(let token, let text):
      guard let token else {
        misuse = "\"\(text)\" is not a replay token; copy the token an exploration printed."
        return result(schedules: 0, complete: false, failure: nil)
      }
      let outcome = await runSchedule(
        GuidedPicker(plan: token.choices), cancelAt: token.cancelAtSuspension, capture)
      if outcome.diverged || outcome.record.choices != token.choices {
        misuse =
          "The replay token \(token) does not fit this body any more: the run took another path "
          + "(\(outcome.record.points.count) choice points instead of \(token.choices.count)). "
          + "Did the code under test change? Explore again to get a new token."
      }
      let failure = outcome.failed ? makeFailure(outcome, found: outcome, schedule: 1) : nil
      return result(schedules: 1, complete: failure == nil, failure: failure)

    case .random(let schedules, let seed), .pct(let schedules, _, let seed):
      var cancelChooser = SplitMix64(seed: seed ^ 0xC0FF_EE00_D15E_A5E5)
      for number in 1...schedules {
        var seeds = SplitMix64(seed: seed &+ UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
        let scheduleSeed = seeds.next()
        var cancelAt: Int?
        if cancellation.enabled, mostSuspensions > 0, cancelChooser.next(below: 2) == 0 {
          cancelAt = cancelChooser.next(below: mostSuspensions)
        }
        let picker: any SchedulePicker
        if case .pct(_, let depth, _) = strategy.kind {
          picker = PCTPicker(
            seed: scheduleSeed, depth: depth, expectedLength: max(longestSchedule, 1))
        } else {
          picker = RandomPicker(seed: scheduleSeed)
        }
        let outcome = await runSchedule(picker, cancelAt: cancelAt, capture)
        if outcome.failed {
          return await fail(outcome, schedule: number, capture)
        }
      }
      return result(schedules: schedules, complete: true, failure: nil)

    case .exhaustive(let maxPreemptions, let limit):
      var count = 0
      var cancelAt: Int?
      while true {
        var plan: [Int?]? = []
        while let next = plan {
          if count == limit { return result(schedules: count, complete: false, failure: nil) }
          count += 1
          let outcome = await runSchedule(GuidedPicker(plan: next), cancelAt: cancelAt, capture)
          if outcome.failed { return await fail(outcome, schedule: count, capture) }
          plan = ExhaustiveSearch.nextPlan(after: outcome.record, maxPreemptions: maxPreemptions)
        }
        // Then the same search with a cancellation at each Lockstep wait in turn.
        guard cancellation.enabled else { break }
        let nextPoint = cancelAt.map { $0 + 1 } ?? 0
        guard nextPoint < mostSuspensions else { break }
        cancelAt = nextPoint
      }
      return result(schedules: count, complete: true, failure: nil)
    }
  }

  private func result(schedules: Int, complete: Bool, failure: ExplorationFailure?)
    -> ExplorationResult
  {
    ExplorationResult(
      strategy: strategy.description, schedulesRun: schedules, isComplete: complete,
      cancellationPoints: mostSuspensions, failure: failure,
      injectsCancellation: cancellation.enabled)
  }

  private func fail(_ outcome: ScheduleOutcome, schedule: Int, _ capture: FailureCapture) async
    -> ExplorationResult
  {
    let simplest = await ScheduleShrinker(explorer: self, capture: capture).shrink(outcome)
    return result(
      schedules: schedule, complete: false,
      failure: makeFailure(simplest, found: outcome, schedule: schedule))
  }

  private func makeFailure(_ outcome: ScheduleOutcome, found: ScheduleOutcome, schedule: Int)
    -> ExplorationFailure
  {
    ExplorationFailure(
      strategy: strategy.description, schedule: schedule,
      token: ReplayToken(
        choices: outcome.record.choices, cancelAtSuspension: outcome.cancelAtSuspension),
      failures: outcome.failures, timeline: outcome.trace.timeline,
      preemptions: outcome.record.preemptions, contextSwitches: outcome.record.contextSwitches,
      found: (found.record.preemptions, found.record.contextSwitches))
  }

  /// Runs the body once, in the order `picker` chooses.
  func runSchedule(_ picker: any SchedulePicker, cancelAt: Int?, _ capture: FailureCapture) async
    -> ScheduleOutcome
  {
    let run = DeterministicRun(
      picker: picker, cancelAtSuspension: cancelAt, stepLimit: maxSteps, timeout: timeout,
      site: site)
    let result = Locked<Result<Void, any Error>?>(nil)
    let mark = capture.mark
    startBody(body, in: run, storingInto: result)
    let drained = await DrainWorker.shared.drain(run)
    var failures = capture.failures(since: mark)
    let trace: SchedulerTrace
    switch drained {
    case .finished(let finished):
      trace = finished
      if case .failure(let error) = result.value { failures.append("The body threw \(error)") }
    case .deadlock(let report):
      trace = report.trace
      failures.append(report.description)
    case .timedOut(let stopped):
      trace = stopped
      failures.append(
        "The schedule did not finish within \(timeout) of real time (\(stopped.steps.count) "
          + "jobs ran); its tasks are quarantined.")
    case .tooManySteps(let stopped):
      trace = stopped
      failures.append(
        "The schedule ran \(stopped.steps.count) jobs without finishing (maxSteps): tasks keep "
          + "each other busy forever in this order (a livelock); they are quarantined.")
    }
    let (picked, suspensions) = run.state.withLock { ($0.picker, $0.suspensionCount) }
    let record = picked?.record ?? ScheduleRecord()
    longestSchedule = max(longestSchedule, record.points.count)
    mostSuspensions = max(mostSuspensions, suspensions)
    return ScheduleOutcome(
      failures: failures, trace: trace, record: record, cancelAtSuspension: cancelAt,
      diverged: (picked as? GuidedPicker)?.diverged ?? false)
  }
}
