/// The outcome of one schedule.
struct ScheduleOutcome: Sendable {
  let failures: [String]
  var trace: SchedulerTrace
  var record: ScheduleRecord
  let cancelAtWait: Int?
  /// The Lockstep waits of tasks other than the body that the schedule reached.
  let waits: Int
  let diverged: Bool
  /// Where the first failure comes from: its source location, the type of the error the body
  /// threw, or the kind of run failure (see ``FailureCapture``). `nil` uses the first failure's text.
  var failureSite: String?
  /// Where a replay left the schedule it replayed.
  var divergence: ReplayDivergence?
  /// For a replay up to a crash that stopped before the step that crashed, that step.
  var stoppedBeforeCrash: Int?

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

/// Runs the schedules of one exploration: replays its pinned tokens, then asks the strategy what
/// to run next until it is done, its time budget ran out, or a schedule fails; then shrinks the
/// failure, replays the result once and describes it. It knows no particular strategy.
final class Explorer: @unchecked Sendable {
  /// Where this exploration's schedules record their choices and steps for a crash report.
  private let crashTrail = CrashReport.Trail.take()

  deinit { crashTrail.giveBack() }
  let setup: ExplorationSetup
  let cancellation: CancellationInjection
  let maxSteps: Int
  let timeout: Duration
  /// How long each schedule waits in real time for a job from outside it before it is stuck.
  let gracePeriod: Duration
  let site: CallSite
  let body: LentBody<Void>
  /// Judges each schedule after its run, outside it; `nil` when the body's own checks say all.
  let judge: ScheduleJudge?
  /// A problem with how explore was called, or a replay that did not follow its token, reported
  /// after the exploration.
  private(set) var misuse: String?
  /// The most Lockstep waits (of tasks other than the body) a schedule has reached so far.
  private var mostWaits = 0
  /// The most choice points a schedule has had so far.
  private var mostChoicePoints = 0
  /// The locks the body took that were no scheduling points, over every schedule.
  private var locksNotScheduled: Set<String> = []
  /// A hash of each distinct schedule explored (its choices and cancellation point).
  private var distinct: Set<Int> = []
  /// How many explored schedules did not run as planned: they repeated one in ``distinct``, or
  /// their picker could not follow its plan.
  private var offPlan = 0
  /// Where a replay left its token's schedule.
  private var divergence: ReplayDivergence?
  /// The pinned tokens that followed their schedule and passed, and those that no longer follow
  /// it, each with where it left it.
  private var pinnedPassed = 0
  private var stale: [(token: String, divergence: ReplayDivergence)] = []
  /// Schedules of other shards' subtrees, run to find the shape of the search.
  private var shapeSchedules = 0
  private var ranOutOfTime = false
  /// What the exploration says on standard error while it runs long (see ``ExplorationProgress``).
  private var progress: ProgressReporter
  /// The real time the last ``run(_:)`` took (not counting the wait for other runs to end).
  private(set) var elapsed = Duration.zero
  /// What a crash report says of the exploration, built once: each schedule's trail begins with it.
  private lazy var trailHeading = "explore \(setup.title) at \(site)"
  /// The buffers the last schedule left to the next.
  private var spare = ScheduleStorage()

  init(
    setup: ExplorationSetup, cancellation: CancellationInjection, maxSteps: Int,
    timeout: Duration, gracePeriod: Duration = .zero, site: CallSite, body: LentBody<Void>,
    judge: ScheduleJudge? = nil
  ) {
    self.judge = judge
    self.setup = setup
    self.cancellation = cancellation
    self.maxSteps = maxSteps
    self.timeout = timeout
    self.gracePeriod = gracePeriod
    self.site = site
    self.body = body
    progress = ProgressReporter(subject: "explore at \(site.fileID):\(site.line)")
  }

  /// What is reported about the pinned tokens that no longer replay, one report each.
  var staleReports: [String] {
    stale.map { token, divergence in
      "explore \(setup.title): the pinned token \"\(token)\" is stale: it no longer replays the "
        + "schedule it was pinned for, so it checks nothing. \(divergence) Remove it from pinned: "
        + "(the exploration still explores), or pin the token of a new failure."
    }
  }

  func run(_ capture: FailureCapture) async -> ExplorationResult {
    defer { crashTrail.end() }
    let started = ExplorationClock()
    var waitedForOthers = Duration.zero
    var slotSince = RealTime.now
    defer { elapsed = started.elapsed - waitedForOthers }
    progress = ProgressReporter(subject: progress.subject)
    let strategy = setup.effective
    var schedules: any ScheduleStrategy = PinnedReplays(
      setup.pinned.map(\.token),
      then: strategy.makeScheduleStrategy(
        injectsCancellation: cancellation.enabled, shard: setup.shard))
    var step = schedules.next(after: nil)
    var count = 0
    var clock: ExplorationClock?
    var failed = 0
    defer { progress.finish(.init(exploring: strategy, done: count, failures: failed)) }
    while case .run(let planned) = step {
      let during: String
      if let pinned = planned.pinned {
        during = "pinned token \(pinned + 1) of \(setup.pinned.count)"
      } else {
        if let clock, let budget = strategy.timeBudget, clock.elapsed >= budget {
          ranOutOfTime = true
          return result(
            schedules: count, complete: false, failure: nil, progress: schedules.progress,
            subtrees: schedules.subtreeSchedules)
        }
        if clock == nil { clock = ExplorationClock() }
        count += 1
        if planned.findsShape { shapeSchedules += 1 }
        during = "schedule \(count)"
      }
      // Schedules are drained on this task's thread (see `DeterministicRun.perform`): give the
      // thread to other work now and then, so that a long exploration does not keep a thread of
      // the cooperative pool from the rest of the tests.
      await RunLifecycle.yieldNowAndThen()
      // Fair to other tests: their explorations wait for the core this one holds.
      let waitStarted = ExplorationClock()
      if let taken = await ExplorationSlots.shared.share(heldSince: slotSince) {
        slotSince = taken
        waitedForOthers += waitStarted.elapsed
      }
      var outcome = await runSchedule(planned, capture, during: during)
      if planned.pinned == nil {
        if !outcome.trace.locksNotScheduled.isEmpty {
          locksNotScheduled.formUnion(outcome.trace.locksNotScheduled)
        }
        mostChoicePoints = max(mostChoicePoints, outcome.record.count)
        var hasher = Hasher()
        outcome.record.hashChoices(into: &hasher)
        hasher.combine(outcome.cancelAtWait)
        if !distinct.insert(hasher.finalize()).inserted || outcome.diverged { offPlan += 1 }
      }
      step = schedules.next(after: outcome.report)
      progress.tick { .init(exploring: strategy, done: count, search: schedules.progress) }
      if case .done(_, let misuse?) = step { self.misuse = misuse }
      var departed: ReplayDivergence?
      if planned.replaying != nil {
        departed = outcome.divergence
        if let pinned = planned.pinned {
          if let departed, !outcome.failed {
            stale.append((setup.pinned[pinned].text, departed))
          } else if !outcome.failed {
            pinnedPassed += 1
          }
        } else {
          divergence = departed
          if let crashStep = planned.stopBeforeStep, !outcome.failed {
            misuse =
              "explore \(setup.title) finished after \(outcome.trace.steps.count) step(s), before "
              + "step \(crashStep), the step that crashed the process in the recorded run: the crash "
              + "did not come back (it is fixed, or this run did not follow the recorded one"
              + (departed.map { ": \($0)" } ?? "") + ")."
          } else if let departed, !outcome.failed {
            misuse = "explore \(setup.title) did not follow its token's schedule. \(departed)"
          }
        }
      }
      if outcome.failed {
        failed = 1
        let failure: ExplorationFailure
        if planned.replaying != nil {
          failure = makeFailure(
            outcome, found: outcome, schedule: planned.pinned == nil ? count : 0, planned: planned,
            replay: departed.map { .diverged($0, replayingToken: true) } ?? .replayedToken,
            pinned: planned.pinned, crashToken: planned.replaying)
        } else {
          let reported =
            schedules.shrinksFailures ? await shrink(outcome, capture, schedule: count) : outcome
          let replay = await replayOnce(reported, capture)
          failure = makeFailure(
            reported, found: outcome, schedule: count, planned: planned, replay: replay, pinned: nil)
        }
        return result(
          schedules: count, complete: false, failure: failure, subtrees: schedules.subtreeSchedules)
      }
      spare.keep(&outcome)
    }
    guard case .done(let complete, let misuse) = step else { preconditionFailure() }
    if let misuse { self.misuse = misuse }
    return result(
      schedules: count, complete: complete, failure: nil,
      progress: complete ? nil : schedules.progress, subtrees: schedules.subtreeSchedules)
  }

  /// A simpler schedule that fails the same way (see ``ScheduleShrinker``).
  private func shrink(_ found: ScheduleOutcome, _ capture: FailureCapture, schedule: Int) async
    -> ScheduleOutcome
  {
    var runs = 0
    return await ScheduleShrinker { plan, cancelAt in
      runs += 1
      self.progress.tick {
        .init(
          exploring: self.setup.effective, done: schedule, failures: 1,
          phase: "shrinking the failing schedule \(schedule), run \(runs)")
      }
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
    if let divergence = again.divergence { return .diverged(divergence, replayingToken: false) }
    guard again.failed else { return .passed }
    guard again.failureKey == reported.failureKey else {
      return .failedOtherwise(again.failures.first ?? "")
    }
    return .reproduced
  }

  private func result(
    schedules: Int, complete: Bool, failure: ExplorationFailure?, progress: SearchProgress? = nil,
    subtrees: [Int]? = nil
  ) -> ExplorationResult {
    // An exhaustive search whose schedules did not run as planned did not cover its tree; a
    // replay that left its token's schedule did not run the schedule it stands for.
    let repeats = setup.strategy.isExhaustive ? offPlan : 0
    let diverged = setup.strategy.isReplay && divergence != nil
    return ExplorationResult(
      strategy: setup.strategy.description, schedulesRun: schedules,
      isComplete: complete && repeats == 0 && !diverged,
      distinctSchedules: distinct.count, mostChoicePoints: mostChoicePoints,
      cancellationPoints: mostWaits, failure: failure, divergence: divergence,
      injectsCancellation: cancellation.enabled, isReplay: setup.strategy.isReplay,
      title: setup.title, shard: setup.shard, ranOutOfTime: ranOutOfTime,
      timeBudget: setup.effective.timeBudget, pinnedPassed: pinnedPassed,
      stalePinnedTokens: stale.map(\.token), shapeSchedules: shapeSchedules, progress: progress,
      offPlanSchedules: repeats, subtreeSchedules: subtrees, locksNotScheduled: locksNotScheduled.sorted())
  }

  private func makeFailure(
    _ outcome: ScheduleOutcome, found: ScheduleOutcome, schedule: Int, planned: PlannedSchedule,
    replay: ExplorationFailure.Replay, pinned: Int?, crashToken: ReplayToken? = nil
  ) -> ExplorationFailure {
    // A replay stopped before a crash reports the crash's token: its own would replay the steps
    // before the crash only.
    let crashed = outcome.stoppedBeforeCrash.flatMap { _ in crashToken }
    // Its number over all shards: a seeded strategy's own, else the count when not split.
    let unsplit = planned.subtree == nil && (setup.shard?.count ?? 1) <= 1
    let overall = schedule == 0 ? nil : planned.number ?? (unsplit ? schedule : nil)
    return ExplorationFailure(
      strategy: setup.strategy.description, schedule: schedule, token: crashed ?? outcome.token,
      failures: outcome.failures, timeline: outcome.trace.timeline,
      preemptions: outcome.record.preemptions, contextSwitches: outcome.record.contextSwitches,
      found: (found.record.preemptions, found.record.contextSwitches), replay: replay,
      hashingIsDeterministic: HashingDeterminism.isDeterministic, title: setup.title,
      shard: setup.shard, pinnedToken: pinned.map { setup.pinned[$0].text },
      pinned: setup.pinnedTexts, readsVirtualNow: outcome.trace.readsVirtualNow,
      stoppedBeforeCrashingStep: crashed == nil ? nil : outcome.stoppedBeforeCrash,
      overallSchedule: overall,
      subtree: planned.subtree.map { ($0, planned.inSubtree ?? 1) })
  }

  /// Runs the body once, in the order the planned schedule's picker chooses; `during` says which
  /// run this is, for a crash report.
  func runSchedule(_ planned: PlannedSchedule, _ capture: FailureCapture, during: String) async
    -> ScheduleOutcome
  {
    let trail = crashTrail
    trail.beginSchedule(during, of: trailHeading, cancelAtWait: planned.cancelAtWait)
    var storage = spare.take()
    var picker = CrashTrailPicker(planned.picker, trail: trail)
    if let record = storage.record.take() { picker.reuse(record) }
    let run = RunRecipe.schedule(
      .init(
        picker: consume picker, cancelAtWait: planned.cancelAtWait, stepLimit: maxSteps,
        stopBeforeStep: planned.stopBeforeStep, crashTrail: trail, timeout: timeout,
        gracePeriod: gracePeriod, trace: storage.trace.take())
    ).make(at: site)
    let mark = capture.mark
    let completion = await run.perform(body)
    let captured = capture.failures(since: mark)
    var failures = captured.map(\.message)
    var failureSite = captured.first?.site
    if let runFailure = completion.runFailure {
      failures.append("\(runFailure)")
      if captured.isEmpty { failureSite = "\(type(of: runFailure))" }
    } else if case .failure(let error) = completion.result {
      failures.append(bodyThrewText(error))
      if captured.isEmpty { failureSite = "the body threw \(String(reflecting: type(of: error)))" }
    }
    if let judge, let judgement = await judge(!failures.isEmpty) {
      failures.append(judgement.failure)
      if let key = judgement.key { failureSite = key }
    }
    let (picked, waits) = run.state.withLock { ($0.picker, $0.waitCount) }
    mostWaits = max(mostWaits, waits)
    var stoppedBeforeCrash: Int?
    if case .stoppedBeforeCrash(let trace, _) = completion.drained {
      stoppedBeforeCrash = trace.steps.count + 1
    }
    var divergence: ReplayDivergence?
    if let token = planned.replaying, let picked {
      divergence = ScheduleCheck.divergence(
        of: token, picker: picked, trace: completion.trace,
        stoppedBeforeCrash: stoppedBeforeCrash != nil)
    }
    return ScheduleOutcome(
      failures: failures, trace: completion.trace, record: picked?.record ?? ScheduleRecord(),
      cancelAtWait: planned.cancelAtWait, waits: waits, diverged: picked?.diverged ?? false,
      failureSite: failureSite, divergence: divergence, stoppedBeforeCrash: stoppedBeforeCrash)
  }
}
