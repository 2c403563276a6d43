/// One `checkLinearizability` call that explores: generates its scenarios, explores each with the
/// strategy, judges every run, and shrinks a failing scenario to the smallest that still fails.
struct LinearizabilityExploration<Object: Sendable, Model: Hashable & Sendable>: Sendable {
  let check: LinearizabilityCheck<Object, Model>
  /// The scenario a replay token names; `nil` when scenarios are generated.
  private(set) var replayed: Scenario?
  /// The schedules of each scenario, read from the strategy and the environment.
  private(set) var setup: ExplorationSetup?

  /// The most smaller scenarios one shrinking explores.
  static var shrinkingBudget: Int { 64 }

  /// The most jobs a run takes when `maxSteps:` is left out.
  static var defaultMaxSteps: Int { 100_000 }

  init(_ check: LinearizabilityCheck<Object, Model>) {
    self.check = check
  }

  var site: CallSite { check.site }
  var timeout: Duration { check.timeout }
  var maxSteps: Int { check.maxSteps ?? Self.defaultMaxSteps }
  var operations: [LinearizabilityOperation<Object, Model>] { check.operations }

  /// Checks the arguments, runs the check with `strategy`, and records what it found.
  nonisolated(nonsending) func perform(_ strategy: ExplorationStrategy) async -> LinearizabilityResult {
    var exploration = self
    var problems = exploration.problems(strategy)
    if let reason = RuntimeHooks.unavailability {
      problems.append("deterministic scheduling is unavailable: \(reason)")
    }
    guard problems.isEmpty, let setup = exploration.setup else {
      return notRun(
        "checkLinearizability \(strategy): \(problems.joined(separator: "; ")). Nothing ran.",
        exploration.setup)
    }
    HashingDeterminism.warnOnceIfNotDeterministic(at: site)
    let outcome: LinearizabilityOutcome
    do {
      let ran = await FailureCapture.capturing { capture in
        do {
          return Result<LinearizabilityOutcome, any Error>.success(
            try await exploration.run(setup, capture))
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
        setup)
    } catch let error as ExplorationWaitCancelled {
      return notRun("\(error)", setup)
    } catch {
      return notRun("checkLinearizability could not run: \(error)", setup)
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
  private func notRun(_ problem: String, _ setup: ExplorationSetup?) -> LinearizabilityResult {
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

  /// Reads `strategy` (a replay names its scenario too) and says what is wrong with the check's
  /// arguments; nothing runs unless this is empty.
  mutating func problems(_ strategy: ExplorationStrategy) -> [String] {
    var problems: [String] = []
    var schedules = strategy
    if case .replay(_, let text, let crashStep) = strategy.kind {
      let parts = text.split(separator: "/", maxSplits: 1)
      if parts.count == 2, let scenario = ScenarioCodec.decode(parts[0]),
        let token = ReplayToken(String(parts[1]))
      {
        replayed = scenario
        schedules = ExplorationStrategy(
          kind: .replay(token, text: text, crashStep: crashStep), timeBudget: strategy.timeBudget)
        if let problem = problem(calling: scenario) { problems.append(problem) }
      } else {
        problems.append(
          "\"\(text)\" is not a token of checkLinearizability: replay the token its report printed, "
            + "\"C1.…/L2.…\" (a scenario and a schedule)")
      }
    }
    let setup = ExplorationSetup(strategy: schedules, pinned: [], environment: .current)
    self.setup = setup
    problems += setup.problems
    problems += check.problems
    problems += ExplorationSetup.runBoundProblems(maxSteps: maxSteps, timeout: timeout)
    return problems
  }

  /// What is wrong with replaying `scenario` with these operations, if anything.
  private func problem(calling scenario: Scenario) -> String? {
    let calls = scenario.before + scenario.tasks.flatMap { $0 } + scenario.after
    for call in calls {
      guard call.operation < operations.count,
        call.argument < operations[call.operation].argumentCount
      else {
        return "the token's scenario calls operations this check does not have: replay it with "
          + "the operations of the check that printed it"
      }
    }
    return nil
  }

  /// Runs the scenarios; returns the result and a problem with the operations, if one was found.
  /// The time it spent is the time its scenarios' explorations ran.
  func run(_ setup: ExplorationSetup, _ capture: FailureCapture) async throws
    -> LinearizabilityOutcome
  {
    let replays = SequentialReplays(
      operations: operations, make: check.make, timeout: timeout, site: site)
    var spent = Duration.zero
    let count = replayed == nil ? check.scenarios.count : 1
    var scenariosRun = 0
    var ranOutOfTime = false
    // One progress line for the whole check, counting scenarios; none from each scenario's
    // exploration.
    var progress = ProgressReporter(subject: "checkLinearizability at \(site.fileID):\(site.line)")
    var failures = 0
    var all = Aggregate()
    /// The outcome so far, with `failure` found, or a problem with the operations.
    func outcome(
      _ failure: LinearizabilityFailure? = nil, misuse: String? = nil, timedOut: Bool
    ) -> LinearizabilityOutcome {
      LinearizabilityOutcome(
        result: LinearizabilityResult(
          scenariosRun: scenariosRun, schedulesRun: all.schedules, failure: failure,
          ranOutOfTime: timedOut, problem: misuse.map { "checkLinearizability: \($0)" }),
        summary: all.result(
          setup, failure: failure?.schedule, ranOutOfTime: timedOut,
          problem: misuse.map { "checkLinearizability: \($0)" }),
        elapsed: spent)
    }
    defer {
      progress.finish(
        .init(done: scenariosRun, of: count, unit: "scenario", failures: failures))
    }
    for index in 0..<count {
      if index > 0, let budget = setup.effective.timeBudget, spent >= budget {
        ranOutOfTime = true
        break
      }
      let scenario = replayed ?? check.scenario(index)
      var strategy = replayed == nil ? setup.strategy.reseeded(for: index) : setup.strategy
      if let budget = setup.effective.timeBudget, replayed == nil {
        // The scenarios left share the time left.
        let share = (budget - spent) / (count - index)
        strategy = strategy.forAtMost(max(share, .milliseconds(1)))
      }
      let explored = try await explore(scenario, strategy, replays, capture, spent: &spent)
      scenariosRun += 1
      if explored.result.failure != nil { failures = 1 }
      if explored.result.ranOutOfTime { ranOutOfTime = true }
      all.add(explored.result)
      progress.tick {
        .init(
          done: scenariosRun, of: count, unit: "scenario", failures: failures,
          timeBudget: setup.effective.timeBudget)
      }
      if let problem = explored.problem {
        return outcome(misuse: problem, timedOut: false)
      }
      guard let found = explored.result.failure else { continue }
      var reported = (scenario: scenario, failure: found, table: explored.table)
      var tried = 0
      if replayed == nil {
        (reported, tried) = try await shrink(reported, strategy, replays, capture, spent: &spent) {
          tried in
          progress.tick {
            .init(
              done: scenariosRun, of: count, unit: "scenario", failures: 1,
              phase: "shrinking the failing scenario \(index + 1), \(tried) smaller tried")
          }
        }
      }
      let failure = LinearizabilityFailure(
        scenario: index + 1, scenarioCount: count,
        isNotLinearizable: Self.isNotLinearizable(reported.failure),
        calls: reported.table,
        foundSize: scenario.size, size: reported.scenario.size, smallerScenariosTried: tried,
        token: "\(ScenarioCodec.encode(reported.scenario))/\(reported.failure.token)",
        schedule: reported.failure, title: setup.title)
      return outcome(failure, timedOut: ranOutOfTime)
    }
    all.isComplete = all.isComplete && scenariosRun == count && !ranOutOfTime
    return outcome(timedOut: ranOutOfTime)
  }

  /// Explores the schedules of one scenario; adds the time it took to
  /// `spent`.
  private func explore(
    _ scenario: Scenario, _ strategy: ExplorationStrategy, _ replays: SequentialReplays<Object, Model>,
    _ capture: FailureCapture, spent: inout Duration
  ) async throws -> (result: ExplorationResult, problem: String?, table: String) {
    let recorder = CallRecorder()
    let judge = check.judge(scenario, replays)
    let run = ScenarioRun(
      scenario: scenario, operations: operations, make: check.make, invariant: check.invariant,
      recorder: recorder, site: site)
    let verdict: ScheduleJudge = { await judge.judge(recorder.history, failedAlready: $0) }
    let explorer = Explorer(
      setup: ExplorationSetup(strategy: strategy, pinned: [], environment: .current),
      cancellation: .none, maxSteps: maxSteps, timeout: timeout, site: site,
      body: LentBody { try await run.run() }, judge: RunJudging.isSkipped ? nil : verdict)
    let quiet = ProgressReporter.Output(mode: .off) { _ in }
    let result = try await RunLifecycle.exploring(at: site) {
      await ProgressReporter.$override.withValue(quiet) { await explorer.run(capture) }
    }
    spent += explorer.elapsed
    return (result, judge.problem ?? explorer.misuse, judge.lastTable)
  }

  /// The smallest scenario found that still fails the same way: one call or one task fewer at a
  /// time, as long as a smaller scenario fails, within ``shrinkingBudget`` explorations.
  private func shrink(
    _ found: (scenario: Scenario, failure: ExplorationFailure, table: String),
    _ strategy: ExplorationStrategy, _ replays: SequentialReplays<Object, Model>,
    _ capture: FailureCapture, spent: inout Duration, tick: (Int) -> Void
  ) async throws -> ((scenario: Scenario, failure: ExplorationFailure, table: String), tried: Int) {
    let kind = Self.isNotLinearizable(found.failure)
    return try await Scenario.shrink(
      found, scenario: \.scenario, budget: Self.shrinkingBudget, tick: tick
    ) { candidate in
      let explored = try await explore(candidate, strategy, replays, capture, spent: &spent)
      guard let failure = explored.result.failure, Self.isNotLinearizable(failure) == kind else {
        return .skip
      }
      return .keep((candidate, failure, explored.table))
    }
  }

  /// Whether a failing schedule's results were ones no order of the calls gives.
  private static func isNotLinearizable(_ failure: ExplorationFailure) -> Bool {
    failure.failures.last?.hasPrefix(RunJudge<Object, Model>.notLinearizable) ?? false
  }
}

/// What one check did: its result (with a problem found with its operations), its explorations
/// summed up for the JSON summary, and the time they ran.
struct LinearizabilityOutcome: Sendable {
  let result: LinearizabilityResult
  let summary: ExplorationResult
  let elapsed: Duration
}

/// The explorations of a check's scenarios summed up as one, for the JSON summary of
/// `LOCKSTEP_REPORTS` (see ``ExplorationSummaryReport``).
private struct Aggregate {
  var schedules = 0
  var distinct = 0
  var shapeSchedules = 0
  var mostChoicePoints = 0
  var offPlan = 0
  /// Whether every scenario's exploration ran every schedule it stands for.
  var isComplete = true

  mutating func add(_ result: ExplorationResult) {
    schedules += result.schedulesRun
    distinct += result.distinctSchedules
    shapeSchedules += result.shapeSchedules
    mostChoicePoints = max(mostChoicePoints, result.mostChoicePoints)
    offPlan += result.offPlanSchedules
    isComplete = isComplete && result.isComplete
  }

  func result(
    _ setup: ExplorationSetup, failure: ExplorationFailure?, ranOutOfTime: Bool, problem: String?
  ) -> ExplorationResult {
    ExplorationResult(
      strategy: setup.strategy.description, schedulesRun: schedules,
      isComplete: isComplete && failure == nil, distinctSchedules: distinct,
      mostChoicePoints: mostChoicePoints, cancellationPoints: 0, failure: failure,
      divergence: nil, injectsCancellation: false, isReplay: setup.strategy.isReplay,
      title: setup.title, shard: setup.shard, ranOutOfTime: ranOutOfTime,
      timeBudget: setup.effective.timeBudget, shapeSchedules: shapeSchedules,
      offPlanSchedules: offPlan, problem: problem)
  }
}

extension ExplorationStrategy {
  /// The strategy for scenario `index`: random and PCT strategies with a seed of its own, so that
  /// scenarios do not all try the same schedules.
  fileprivate func reseeded(for index: Int) -> Self {
    let mix = UInt64(index) &* 0xD1B5_4A32_D192_ED03
    switch kind {
    case .random(let schedules, let seed):
      return Self(kind: .random(schedules: schedules, seed: seed ^ mix), timeBudget: timeBudget)
    case .pct(let schedules, let depth, let seed):
      return Self(kind: .pct(schedules: schedules, depth: depth, seed: seed ^ mix), timeBudget: timeBudget)
    case .exhaustive, .replay:
      return self
    }
  }
}
