/// The outcome of one schedule.
struct ScheduleOutcome: Sendable {
  let failures: [String]
  let trace: SchedulerTrace
  let record: ScheduleRecord
  let cancelAtWait: Int?
  /// The Lockstep waits of tasks other than the body that the schedule reached.
  let waits: Int
  let diverged: Bool
  /// Where the first failure comes from: its source location, the type of the error the body
  /// threw, or the kind of run failure (see ``FailureCapture``). `nil` uses the first failure's text.
  var failureSite: String?
  /// Where a replay left the schedule it replayed.
  var departure: ScheduleDeparture?

  var failed: Bool { !failures.isEmpty }
  /// What makes two failing schedules fail "the same way": the shrinker keeps it, and the replay
  /// before a report checks it.
  var failureKey: String? { failureSite ?? failures.first }
  /// Smaller is simpler.
  var complexity: (Int, Int, Int) {
    (record.preemptions, record.contextSwitches, cancelAtWait == nil ? 0 : 1)
  }
  /// What the strategy is told.
  var report: ScheduleReport { ScheduleReport(record: record, waits: waits, diverged: diverged) }
  /// The token that replays this schedule.
  var token: ReplayToken { ReplayToken(record: record, cancelAtWait: cancelAtWait, trace: trace) }
}

/// Runs the schedules of one exploration: asks the strategy what to run next until it is done or
/// a schedule fails, then shrinks the failure, replays the result once and describes it. It knows
/// no particular strategy.
final class Explorer: @unchecked Sendable {
  let strategy: ExplorationStrategy
  let cancellation: CancellationInjection
  let maxSteps: Int
  let timeout: Duration
  let site: CallSite
  let body: LentBody<Void>
  /// A problem with how explore was called, or a replay that did not follow its token, reported
  /// after the exploration.
  private(set) var misuse: String?
  /// The most Lockstep waits (of tasks other than the body) a schedule has reached so far.
  private var mostWaits = 0
  /// The most choice points a schedule has had so far.
  private var mostChoicePoints = 0
  /// A hash of each distinct schedule explored (its choices and cancellation point).
  private var distinct: Set<Int> = []
  /// Where a replay left its token's schedule.
  private var divergence: ReplayDivergence?

  init(
    strategy: ExplorationStrategy, cancellation: CancellationInjection, maxSteps: Int,
    timeout: Duration, site: CallSite, body: LentBody<Void>
  ) {
    self.strategy = strategy
    self.cancellation = cancellation
    self.maxSteps = maxSteps
    self.timeout = timeout
    self.site = site
    self.body = body
  }

  func run(_ capture: FailureCapture) async -> ExplorationResult {
    CrashReport.beginExploration("explore \(strategy) at \(site)")
    defer { CrashReport.endExploration() }
    var schedules = strategy.makeScheduleStrategy(injectsCancellation: cancellation.enabled)
    var step = schedules.next(after: nil)
    var count = 0
    while case .run(let planned) = step {
      count += 1
      let outcome = await runSchedule(planned, capture, during: "schedule \(count)")
      mostChoicePoints = max(mostChoicePoints, outcome.record.points.count)
      var hasher = Hasher()
      hasher.combine(outcome.record.choices)
      hasher.combine(outcome.cancelAtWait)
      distinct.insert(hasher.finalize())
      step = schedules.next(after: outcome.report)
      if case .done(_, let misuse?) = step { self.misuse = misuse }
      if planned.replaying != nil {
        divergence = outcome.departure?.divergence
        if let divergence, !outcome.failed {
          misuse = "explore \(strategy) did not follow its token's schedule. \(divergence)"
        }
      }
      if outcome.failed {
        let failure: ExplorationFailure
        if planned.replaying != nil {
          failure = makeFailure(
            outcome, found: outcome, schedule: count,
            replay: divergence.map { .diverged($0, replayingToken: true) } ?? .replayedToken)
        } else {
          let reported =
            schedules.shrinksFailures ? await shrink(outcome, capture, schedule: count) : outcome
          let replay = await replayOnce(reported, capture)
          failure = makeFailure(reported, found: outcome, schedule: count, replay: replay)
        }
        return result(schedules: count, complete: false, failure: failure)
      }
    }
    guard case .done(let complete, let misuse) = step else { preconditionFailure() }
    if let misuse { self.misuse = misuse }
    return result(schedules: count, complete: complete, failure: nil)
  }

  /// A simpler schedule that fails the same way (see ``ScheduleShrinker``).
  private func shrink(_ found: ScheduleOutcome, _ capture: FailureCapture, schedule: Int) async
    -> ScheduleOutcome
  {
    var runs = 0
    return await ScheduleShrinker { plan, cancelAt in
      runs += 1
      return await self.runSchedule(
        PlannedSchedule(picker: GuidedPicker(plan: plan), cancelAtWait: cancelAt), capture,
        during: "schedule \(schedule), which failed; shrinking it, run \(runs)")
    }.shrink(found)
  }

  /// Runs the reported schedule once more, from its token, and says whether it reproduced.
  private func replayOnce(_ reported: ScheduleOutcome, _ capture: FailureCapture) async
    -> ExplorationFailure.Replay
  {
    let token = reported.token
    let again = await runSchedule(
      PlannedSchedule(
        picker: GuidedPicker(replaying: token), cancelAtWait: token.cancelAtWait, replaying: token),
      capture, during: "the replay of the reported schedule, before the report")
    if let departure = again.departure { return .diverged(departure.divergence, replayingToken: false) }
    guard again.failed else { return .passed }
    guard again.failureKey == reported.failureKey else {
      return .failedOtherwise(again.failures.first ?? "")
    }
    return .reproduced
  }

  private func result(schedules: Int, complete: Bool, failure: ExplorationFailure?)
    -> ExplorationResult
  {
    ExplorationResult(
      strategy: strategy.description, schedulesRun: schedules, isComplete: complete,
      distinctSchedules: distinct.count, mostChoicePoints: mostChoicePoints,
      cancellationPoints: mostWaits, failure: failure, divergence: divergence,
      injectsCancellation: cancellation.enabled, isReplay: strategy.isReplay)
  }

  private func makeFailure(
    _ outcome: ScheduleOutcome, found: ScheduleOutcome, schedule: Int,
    replay: ExplorationFailure.Replay
  ) -> ExplorationFailure {
    ExplorationFailure(
      strategy: strategy.description, schedule: schedule, token: outcome.token,
      failures: outcome.failures, timeline: outcome.trace.timeline,
      preemptions: outcome.record.preemptions, contextSwitches: outcome.record.contextSwitches,
      found: (found.record.preemptions, found.record.contextSwitches), replay: replay,
      hashingIsDeterministic: HashingDeterminism.isDeterministic)
  }

  /// Runs the body once, in the order the planned schedule's picker chooses; `during` says which
  /// run this is, for a crash report.
  func runSchedule(_ planned: PlannedSchedule, _ capture: FailureCapture, during: String) async
    -> ScheduleOutcome
  {
    CrashReport.beginSchedule(during, cancelAtWait: planned.cancelAtWait)
    let run = DeterministicRun(
      order: .picked(CrashTrailPicker(planned.picker)), cancelAtWait: planned.cancelAtWait,
      stepLimit: maxSteps, timeout: timeout, site: site)
    let mark = capture.mark
    let completion = await run.perform(body)
    let captured = capture.failures(since: mark)
    var failures = captured.map(\.message)
    var failureSite = captured.first?.site
    if let runFailure = completion.runFailure {
      failures.append("\(runFailure)")
      if captured.isEmpty { failureSite = "\(type(of: runFailure))" }
    } else if case .failure(let error) = completion.result {
      failures.append("The body threw \(error)")
      if captured.isEmpty { failureSite = "the body threw \(String(reflecting: type(of: error)))" }
    }
    let (trailed, waits) = run.state.withLock { ($0.picker as? CrashTrailPicker, $0.waitCount) }
    let picked = trailed?.picker
    mostWaits = max(mostWaits, waits)
    let guided = picked as? GuidedPicker
    var departure: ScheduleDeparture?
    if let token = planned.replaying, let guided {
      departure = ScheduleCheck.departure(of: token, picker: guided, trace: completion.trace)
    }
    return ScheduleOutcome(
      failures: failures, trace: completion.trace, record: picked?.record ?? ScheduleRecord(),
      cancelAtWait: planned.cancelAtWait, waits: waits, diverged: guided?.diverged ?? false,
      failureSite: failureSite, departure: departure)
  }
}
