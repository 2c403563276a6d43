/// The outcome of one schedule.
struct ScheduleOutcome: Sendable {
  let failures: [String]
  let trace: SchedulerTrace
  let record: ScheduleRecord
  let cancelAtWait: Int?
  /// The Lockstep waits of tasks other than the body that the schedule reached.
  let waits: Int
  let diverged: Bool

  var failed: Bool { !failures.isEmpty }
  /// Smaller is simpler.
  var complexity: (Int, Int, Int) {
    (record.preemptions, record.contextSwitches, cancelAtWait == nil ? 0 : 1)
  }
  /// What the strategy is told.
  var report: ScheduleReport { ScheduleReport(record: record, waits: waits, diverged: diverged) }
}

/// Runs the schedules of one exploration: asks the strategy what to run next until it is done or
/// a schedule fails, then shrinks the failure and describes it. It knows no particular strategy.
final class Explorer: @unchecked Sendable {
  let strategy: ExplorationStrategy
  let cancellation: CancellationInjection
  let maxSteps: Int
  let timeout: Duration
  let site: CallSite
  let body: LentBody<Void>
  /// A problem with how explore was called, reported after the exploration.
  private(set) var misuse: String?
  /// The most Lockstep waits (of tasks other than the body) a schedule has reached so far.
  private var mostWaits = 0

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
    var schedules = strategy.makeScheduleStrategy(injectsCancellation: cancellation.enabled)
    var step = schedules.next(after: nil)
    var count = 0
    while case .run(let planned) = step {
      count += 1
      let outcome = await runSchedule(planned, capture)
      step = schedules.next(after: outcome.report)
      if case .done(_, let misuse?) = step { self.misuse = misuse }
      if outcome.failed {
        let reported =
          schedules.shrinksFailures
          ? await ScheduleShrinker { plan, cancelAt in
            await self.runSchedule(
              PlannedSchedule(picker: GuidedPicker(plan: plan), cancelAtWait: cancelAt), capture)
          }.shrink(outcome)
          : outcome
        return result(
          schedules: count, complete: false,
          failure: makeFailure(reported, found: outcome, schedule: count))
      }
    }
    guard case .done(let complete, let misuse) = step else { preconditionFailure() }
    if let misuse { self.misuse = misuse }
    return result(schedules: count, complete: complete, failure: nil)
  }

  private func result(schedules: Int, complete: Bool, failure: ExplorationFailure?)
    -> ExplorationResult
  {
    ExplorationResult(
      strategy: strategy.description, schedulesRun: schedules, isComplete: complete,
      cancellationPoints: mostWaits, failure: failure, injectsCancellation: cancellation.enabled)
  }

  private func makeFailure(_ outcome: ScheduleOutcome, found: ScheduleOutcome, schedule: Int)
    -> ExplorationFailure
  {
    ExplorationFailure(
      strategy: strategy.description, schedule: schedule,
      token: ReplayToken(choices: outcome.record.choices, cancelAtWait: outcome.cancelAtWait),
      failures: outcome.failures, timeline: outcome.trace.timeline,
      preemptions: outcome.record.preemptions, contextSwitches: outcome.record.contextSwitches,
      found: (found.record.preemptions, found.record.contextSwitches))
  }

  /// Runs the body once, in the order the planned schedule's picker chooses.
  func runSchedule(_ planned: PlannedSchedule, _ capture: FailureCapture) async -> ScheduleOutcome {
    let run = DeterministicRun(
      order: .picked(planned.picker), cancelAtWait: planned.cancelAtWait, stepLimit: maxSteps,
      timeout: timeout, site: site)
    let mark = capture.mark
    let completion = await run.perform(body)
    var failures = capture.failures(since: mark)
    if let runFailure = completion.runFailure {
      failures.append("\(runFailure)")
    } else if case .failure(let error) = completion.result {
      failures.append("The body threw \(error)")
    }
    let (picked, waits) = run.state.withLock { ($0.picker, $0.waitCount) }
    mostWaits = max(mostWaits, waits)
    return ScheduleOutcome(
      failures: failures, trace: completion.trace, record: picked?.record ?? ScheduleRecord(),
      cancelAtWait: planned.cancelAtWait, waits: waits,
      diverged: (picked as? GuidedPicker)?.diverged ?? false)
  }
}
