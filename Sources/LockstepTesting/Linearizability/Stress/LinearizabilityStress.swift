/// One `checkLinearizability(.stress(…))` call: generates its scenarios, runs each on real threads
/// until ``runs`` of its runs overlapped (within a bound on attempts and on time), judges every
/// run, counts how many runs of a failing scenario failed, and shrinks it to the smallest scenario
/// that still fails within as many runs.
struct LinearizabilityStress<Object: Sendable, Model: Hashable & Sendable>: Sendable {
  let check: LinearizabilityCheck<Object, Model>
  let mode: StressMode
  /// What `LOCKSTEP_STRESS_COUNT` says.
  let environment: StressCount
  /// The real-time bound of each run, scaled by `LOCKSTEP_TIMEOUT_SCALE`.
  let timeout: Duration

  init(_ check: LinearizabilityCheck<Object, Model>, mode: StressMode, environment: StressCount) {
    self.check = check
    self.mode = mode
    self.environment = environment
    timeout = FailureBoundScale.scaled(check.timeout)
  }

  var site: CallSite { check.site }
  var operations: [LinearizabilityOperation<Object, Model>] { check.operations }

  /// Checks the arguments, runs the check, and records what it found.
  nonisolated(nonsending) func perform() async -> LinearizabilityStressResult {
    let problems = problems()
    guard problems.isEmpty else {
      let problem = "checkLinearizability(\(title)): \(problems.joined(separator: "; ")). Nothing ran."
      reportIssue(problem, at: site)
      return LinearizabilityStressResult(
        scenariosRun: 0, runs: 0, overlappingRuns: 0, runsPerScenario: runs, failure: nil,
        problem: problem)
    }
    let result = await FailureCapture.capturing { capture in await run(capture) }
    if let problem = result.problem { reportIssue(problem, at: site) }
    if let failure = result.failure { reportIssue(failure.description, at: site) }
    return result
  }

  /// The most smaller scenarios one shrinking runs, each as many times as the scenario that failed.
  static var shrinkingBudget: Int { 32 }

  /// The most runs a scenario makes, for each run asked for, while too few of them overlap.
  static var attemptsPerRun: Int { 20 }

  /// The overlapping runs a scenario that failed makes at most, to count how often it fails.
  static var runsAfterAFailure: Int { 1_000 }

  /// How many overlapping runs each scenario is to make: `LOCKSTEP_STRESS_COUNT`, else the mode's
  /// count.
  var runs: Int { environment.count ?? mode.runs }

  /// The most runs a scenario makes: ``attemptsPerRun`` times ``runs``.
  var attempts: Int {
    let (product, overflow) = runs.multipliedReportingOverflow(by: Self.attemptsPerRun)
    return overflow ? .max : product
  }

  /// `stress(runs: 1,000)`, or `stress(runs: 50) (LOCKSTEP_STRESS_COUNT=50)`.
  var title: String {
    environment.count.map { "\(StressMode.stress(runs: $0)) (\(StressCount.variable)=\($0))" }
      ?? mode.description
  }

  /// What is wrong with the check's arguments or where it is called; nothing runs unless this is
  /// empty.
  func problems() -> [String] {
    var problems: [String] = []
    if CurrentRun.isActive {
      problems.append(
        "it cannot run inside a deterministic run: stress runs the calls on real threads, and the "
          + "scheduler would run them one at a time. Call it from a test that is not under the "
          + ".deterministic trait or withDeterministicScheduling, or leave out .stress to explore "
          + "the scenarios under the scheduler")
    }
    if mode.runs < 1 { problems.append("runs: \(mode.runs) must be at least 1") }
    if let problem = environment.problem { problems.append(problem) }
    problems += check.problems
    if let maxSteps = check.maxSteps {
      problems.append(
        "maxSteps: \(maxSteps) bounds the jobs of a run under the scheduler, and stress runs on real "
          + "threads: leave it out")
    }
    if timeout <= .zero { problems.append("timeout: \(timeout) must be positive") }
    return problems
  }

  /// Runs the scenarios, each until ``runs`` of its runs overlapped, until one fails; then shrinks
  /// it.
  func run(_ capture: FailureCapture) async -> LinearizabilityStressResult {
    let replays = SequentialReplays(
      operations: operations, make: check.make, timeout: timeout, site: site, onRealThreads: true)
    let count = check.scenarios.count
    var progress = ProgressReporter(subject: "checkLinearizability at \(site.fileID):\(site.line)")
    var runsMade = 0
    var overlapping = 0
    var failures = 0
    defer {
      progress.finish(.init(done: overlapping, of: count * runs, unit: "run", failures: failures))
    }
    func result(scenariosRun: Int, _ failure: LinearizabilityStressFailure? = nil, problem: String? = nil)
      -> LinearizabilityStressResult
    {
      LinearizabilityStressResult(
        scenariosRun: scenariosRun, runs: runsMade, overlappingRuns: overlapping,
        runsPerScenario: runs, failure: failure,
        problem: problem.map { "checkLinearizability(\(title)): \($0)" })
    }
    for index in 0..<count {
      let scenario = check.scenario(index)
      let found = await stress(scenario, replays, capture) { failed, overlapped in
        runsMade += 1
        overlapping += overlapped ? 1 : 0
        failures += failed ? 1 : 0
        progress.tick {
          .init(done: overlapping, of: count * runs, unit: "run", failures: failures)
        }
      }
      if let problem = found.problem { return result(scenariosRun: index + 1, problem: problem) }
      guard let first = found.first else {
        if let shortfall = found.shortfall {
          return result(
            scenariosRun: index + 1,
            problem: tooFewOverlapped(found, shortfall, scenario: index + 1, of: count, scenario.size))
        }
        continue
      }
      var reported = (scenario: scenario, stressed: found, first: first)
      var tried = 0
      if !found.didNotFinish {
        (reported, tried) = await shrink(reported, replays, capture) { tried in
          progress.tick {
            .init(
              done: overlapping, of: count * runs, unit: "run", failures: failures,
              phase: "shrinking the failing scenario \(index + 1), \(tried) smaller tried")
          }
        }
      }
      let failure = LinearizabilityStressFailure(
        scenario: index + 1, scenarioCount: count, isNotLinearizable: reported.first.isNotLinearizable,
        calls: reported.first.table, failures: reported.first.failures, runs: reported.stressed.runs,
        overlappingRuns: reported.stressed.overlapping, runsAsked: runs,
        failedRuns: reported.stressed.failedRuns,
        failedOverlappingRuns: reported.stressed.failedOverlapping,
        shortfall: reported.stressed.shortfall.map { describe($0) },
        didNotFinish: reported.stressed.didNotFinish,
        foundSize: scenario.size, size: reported.scenario.size,
        foundFailedRuns: found.failedRuns, foundRuns: found.runs, smallerScenariosTried: tried,
        title: title)
      return result(scenariosRun: index + 1, failure)
    }
    return result(scenariosRun: count)
  }

  /// A run that failed: what failed, the table of its calls, and whether its results were ones no
  /// order of the calls gives.
  struct FailedRun {
    let failures: [String]
    let table: String
    let isNotLinearizable: Bool
  }

  /// Why a scenario stopped before ``runs`` of its runs overlapped.
  enum Shortfall {
    /// It made ``attempts`` runs.
    case attempts
    /// Its runs took ``timeout`` together.
    case time
  }

  /// What the runs of one scenario gave.
  struct Stressed {
    /// How many runs ran.
    var runs = 0
    /// How many of them overlapped: two tasks had calls in flight at once.
    var overlapping = 0
    /// How many of them failed.
    var failedRuns = 0
    /// How many of those that overlapped failed.
    var failedOverlapping = 0
    /// Why the runs stopped before ``runs`` of them overlapped, if they did.
    var shortfall: Shortfall?
    /// The first run that failed.
    var first: FailedRun?
    /// Whether the last run did not finish within the timeout: the runs stopped there.
    var didNotFinish = false
    /// What stopped the runs before they could be judged: operations that cannot be judged alone,
    /// or a cancelled test.
    var problem: String?
  }

  /// Runs `scenario` until ``runs`` of its runs overlapped — or it made ``attempts`` runs, or its
  /// runs took ``timeout`` together, or a run did not finish — and judges each run; `ran` is told
  /// after each run whether it failed and whether it overlapped.
  private func stress(
    _ scenario: Scenario, _ replays: SequentialReplays<Object, Model>, _ capture: FailureCapture,
    ran: (_ failed: Bool, _ overlapped: Bool) -> Void
  ) async -> Stressed {
    let judge = check.judge(scenario, replays)
    let run = StressScenarioRun(
      scenario: scenario, operations: operations, make: check.make, invariant: check.invariant)
    var stressed = Stressed()
    let clock = ContinuousClock()
    let start = clock.now
    while stressed.overlapping < runs {
      // A scenario that failed runs on only to count how often it fails.
      if stressed.first != nil && stressed.overlapping >= Self.runsAfterAFailure { break }
      if stressed.runs >= attempts {
        stressed.shortfall = .attempts
        break
      }
      if stressed.runs > 0 && clock.now - start >= timeout {
        stressed.shortfall = .time
        break
      }
      let index = stressed.runs + 1
      let mark = capture.mark
      let log = StressCallLog(tasks: scenario.tasks.count)
      let outcome = await BoundedTask.run(within: timeout) { await run.run(log) }
      var failures: [String] = []
      switch outcome {
      case .cancelled:
        stressed.problem = "the test was cancelled"
        return stressed
      case .timedOut:
        stressed.didNotFinish = true
        failures.append(
          "Run \(index) did not finish within \(timeout): " + pending(log.history, judge: judge))
      case .finished(let thrown):
        failures = capture.failures(since: mark).map(\.message)
        if let thrown {
          failures.append("The invariant threw an error of type \(type(of: thrown)): \(thrown)")
        }
      }
      stressed.runs += 1
      let overlapped = log.overlapped
      stressed.overlapping += overlapped ? 1 : 0
      let verdict = await judge.judge(log.history, failedAlready: !failures.isEmpty)
      if let problem = judge.problem {
        stressed.problem = problem
        return stressed
      }
      ran(verdict != nil, overlapped)
      if let verdict {
        stressed.failedRuns += 1
        stressed.failedOverlapping += overlapped ? 1 : 0
        if stressed.first == nil {
          stressed.first = FailedRun(
            failures: failures + [verdict.failure], table: judge.lastTable,
            isNotLinearizable: verdict.failure.hasPrefix(RunJudge<Object, Model>.notLinearizable))
        }
      }
      if stressed.didNotFinish { return stressed }
    }
    return stressed
  }

  /// Why the runs stopped short, as the report says it.
  private func describe(_ shortfall: Shortfall) -> String {
    switch shortfall {
    case .attempts:
      "it made the most runs it makes, \(Self.attemptsPerRun) for each run asked for"
    case .time:
      "its runs took the time they are given together, timeout: \(timeout)"
    }
  }

  /// The problem a passing scenario reports when too few of its runs overlapped.
  private func tooFewOverlapped(
    _ stressed: Stressed, _ shortfall: Shortfall, scenario: Int, of count: Int, _ size: String
  ) -> String {
    "too few runs overlapped to judge scenario \(scenario) of \(count) (\(size)): "
      + "\(stressed.overlapping.grouped) of the \(runs.grouped) asked for, in \(stressed.runs.grouped) "
      + "runs made (\(stressed.failedRuns.grouped) failed), before \(describe(shortfall)). A run "
      + "overlaps when two tasks have calls in flight at once; the machine was too busy to run the "
      + "tasks together often enough, so the check does not pass. Run it with less beside it, give "
      + "it a longer timeout:, or ask for fewer runs."
  }

  /// What a run that did not finish was doing: the calls that had begun and not returned.
  private func pending(_ history: History<ScenarioCall, CallOutcome>, judge: RunJudge<Object, Model>)
    -> String
  {
    let table = ScenarioTable(scenario: judge.scenario, history: history) {
      operations[$0.operation].text(argument: $0.argument)
    }
    let calls = history.calls.filter(\.isPending).map { call in
      let text = operations[call.operation.operation].text(argument: call.operation.argument)
      return "\(table.maker(of: call.id)): \(text)"
    }
    if calls.isEmpty {
      return "no call was in flight (making the object with `of:`, or the invariant, did not "
        + "return). Its tasks are left running; the check stopped."
    }
    return "\(calls.joined(separator: ", ")) had not returned. Its tasks are left running; the "
      + "check stopped."
  }

  /// The smallest scenario found that still fails the same way within ``runs`` runs: one call or
  /// one task fewer at a time, within ``shrinkingBudget`` scenarios.
  private func shrink(
    _ found: (scenario: Scenario, stressed: Stressed, first: FailedRun),
    _ replays: SequentialReplays<Object, Model>, _ capture: FailureCapture, tick: (Int) -> Void
  ) async -> ((scenario: Scenario, stressed: Stressed, first: FailedRun), tried: Int) {
    await Scenario.shrink(found, scenario: \.scenario, budget: Self.shrinkingBudget, tick: tick) {
      candidate in
      let stressed = await stress(candidate, replays, capture) { _, _ in }
      if stressed.problem != nil || stressed.didNotFinish { return .stop }
      guard let first = stressed.first, first.isNotLinearizable == found.first.isNotLinearizable
      else { return .skip }
      return .keep((candidate, stressed, first))
    }
  }
}
