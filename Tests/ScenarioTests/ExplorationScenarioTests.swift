import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing

// Issue #6: every scenario of SCENARIOS.md with a broken variant is caught by exploration without
// the test writing the bad order by hand (scenario 7), and every correct variant passes an
// exhaustive run. Each check below runs a scenario the way the app does and states only its
// invariant; the scheduler chooses the interleaving (and, with `.atLockstepWaits`, where a task
// is cancelled). Each broken variant's bug needs a particular interleaving (issue #17): within
// the check's bound some schedules pass and some fail, so a test that finds it proves that
// exploring found it, not a single run.

/// One check of a scenario under exploration: the invariant, run on the broken variant (some
/// schedules must fail it, others pass) and on the correct one (every schedule must pass it).
struct ExploredCheck: Sendable, CustomTestStringConvertible {
  let testDescription: String
  /// The strategy that finds the broken variant's bug.
  let finder: ExplorationStrategy
  /// The bound within which both variants are explored exhaustively.
  let maxPreemptions: Int
  let cancellation: CancellationInjection
  /// Text that the reported failure must contain: what the invariant says went wrong.
  let reportMentions: String
  /// Lines that the failing schedule's timeline must show, in this order: what sets the failing
  /// schedule apart from the passing ones, as told by the fakes' notes.
  let timelineShows: [String]
  /// One run of the broken variant that throws when the invariant fails.
  let broken: @Sendable () async throws -> Void
  let correct: @Sendable () async throws -> Void
  /// One run of the broken variant that says whether the invariant held, recording nothing.
  let brokenHolds: @Sendable () async throws -> Bool

  /// - Parameter invariant: Runs the scenario on a version of the model and returns what went
  ///   wrong, or `nil`; it may also report Lockstep issues (an `EventCounter`'s count).
  init<Version: Sendable>(
    _ description: String, finder: ExplorationStrategy, maxPreemptions: Int = 2,
    cancellation: CancellationInjection = .none, reportMentions: String,
    timelineShows: [String] = [], broken: Version, correct: Version,
    invariant: @escaping @Sendable (Version) async throws -> String?
  ) {
    testDescription = description
    self.finder = finder
    self.maxPreemptions = maxPreemptions
    self.cancellation = cancellation
    self.reportMentions = reportMentions
    self.timelineShows = timelineShows
    // A violation is thrown, not recorded: a thrown error fails its schedule without a Swift
    // Testing issue, so that the schedules explore runs and holds back (the shrinker's runs, the
    // broken variant's bound check) add no known issue to a passing run. How a failed `#expect`
    // in a schedule reaches explore is ExplorationTests' subject.
    let checked: @Sendable (Version) async throws -> Void = { version in
      if let violation = try await invariant(version) { throw ExplorationViolation(violation) }
    }
    self.broken = { try await checked(broken) }
    self.correct = { try await checked(correct) }
    self.brokenHolds = {
      let (violation, issues) = try await collectingIssues { try await invariant(broken) }
      return violation == nil && issues.isEmpty
    }
  }
}

/// `nil` when `holds`, else `violation`.
private func unless(_ holds: Bool, _ violation: @autoclosure () -> String) -> String? {
  holds ? nil : violation()
}

extension ExploredCheck {
  // Scenario 1: a cancelled load leaves no side effect.
  static let cancelledLoad = ExploredCheck(
    "a cancelled load leaves no trace", finder: .exhaustive(maxPreemptions: 1),
    cancellation: .atLockstepWaits, reportMentions: "a cancelled load left a trace",
    timelineShows: ["is cancelled here", "service answers \"Blob\" to a cancelled load"],
    broken: Variant.broken, correct: .correct
  ) { variant in
    let outcome = try await exploreProfileLoad(variant)
    if outcome.loadWasCancelled {
      return unless(
        outcome.name == "" && !outcome.greetingShown, "a cancelled load left a trace: \(outcome)")
    }
    return unless(
      outcome.name == "Blob" && outcome.greetingShown, "a finished load shows the name: \(outcome)")
  }

  // Scenario 2: the newest reload wins, whatever order the answers come in.
  static let staleAnswer = ExploredCheck(
    "the newest reload's book is shown", finder: .pct(schedules: 200, depth: 2, seed: 2),
    reportMentions: "the newest reload's book is shown and loading has ended",
    timelineShows: ["reload 2 returns", "reload 1 returns; the screen shows Book 1"],
    broken: BookScreenModel.Variant.withoutGenerationCheck, correct: .correct
  ) { variant in
    let screen = try await exploreTwoReloads(variant)
    return unless(
      screen == .newest, "the newest reload's book is shown and loading has ended; \(screen)")
  }

  // Scenario 2: a failure of an obsolete request does not erase newer content.
  static let obsoleteFailure = ExploredCheck(
    "an obsolete failure keeps the newer book", finder: .pct(schedules: 200, depth: 2, seed: 2),
    reportMentions: "an obsolete failure must not erase the newer book",
    timelineShows: ["reload 2 returns", "reload 1 returns; the screen shows no book"],
    broken: BookScreenModel.Variant.withoutGenerationCheck, correct: .correct
  ) { variant in
    let screen = try await exploreTwoReloads(variant, firstRequestFails: true)
    return unless(screen == .newest, "an obsolete failure must not erase the newer book; \(screen)")
  }

  // Scenario 2: a reload whose caller was cancelled publishes nothing, even when answered.
  static let cancelledReload = ExploredCheck(
    "a cancelled reload publishes nothing", finder: .exhaustive(maxPreemptions: 1),
    cancellation: .atLockstepWaits, reportMentions: "a cancelled reload publishes nothing",
    timelineShows: ["is cancelled here (injected by explore)"],
    broken: BookScreenModel.Variant.withoutCancellationCheck, correct: .correct
  ) { variant in
    let (screen, callerCancelled) = try await exploreReloadAnsweredLate(variant)
    if callerCancelled {
      return unless(screen == .untouched, "a cancelled reload publishes nothing; \(screen)")
    }
    return unless(
      screen == BookScreen(book: Book(id: 1, title: "Book 1")), "a reload publishes its book; \(screen)")
  }

  // Scenario 3: with two requests in flight, the newest query's results win (debounced model).
  static let debouncedSearch = ExploredCheck(
    "the newest query wins after debouncing", finder: .pct(schedules: 300, depth: 2, seed: 3),
    maxPreemptions: 1,
    reportMentions: "the newest query's results win",
    timelineShows: ["backend answers \"ab\"", "backend answers \"a\""], broken: Variant.broken,
    correct: .correct
  ) { variant in
    let results = try await exploreDebouncedSearch(variant)
    return unless(results == ["results for ab"], "the newest query's results win; shown: \(results)")
  }

  // Scenario 3: with two requests in flight, the newest query's results win (immediate model).
  static let newestQuery = ExploredCheck(
    "the newest query wins", finder: .random(schedules: 100, seed: 3),
    reportMentions: "the newest query's results win and searching has ended",
    timelineShows: ["backend answers \"swift\"", "backend answers \"sw\""],
    broken: Variant.broken, correct: .correct
  ) { variant in
    let (results, isSearching) = try await exploreTwoQueries(variant)
    return unless(
      results == ["results for swift"] && !isSearching,
      "the newest query's results win and searching has ended; shown: \(results), searching: \(isSearching)")
  }

  // Scenario 4: two callers at once create exactly one draft.
  static let oneDraft = ExploredCheck(
    "two creators store one draft", finder: .random(schedules: 100, seed: 4),
    reportMentions: "exactly one draft is stored",
    timelineShows: ["validator checks draft 7", "validator checks draft 7"], broken: Variant.broken,
    correct: .correct
  ) { variant in
    let drafts = try await exploreTwoCreators(variant)
    return unless(drafts == [7], "exactly one draft is stored; stored: \(drafts)")
  }

  // Scenario 5: each completion is called exactly once, cached or not.
  static let completionOnce = ExploredCheck(
    "each completion is called once", finder: .random(schedules: 100, seed: 5),
    reportMentions: "expected exactly 1 event(s), got 2",
    timelineShows: ["calls the second screen's completion", "calls the second screen's completion"],
    broken: Variant.broken, correct: .correct
  ) { variant in
    let (first, second) = try await exploreTwoFetches(variant)
    first.expectCount(1)
    second.expectCount(1)
    return nil
  }

  // Scenario 5: the feed emits exactly its three prices, even when the screen starts it twice.
  static let threePrices = ExploredCheck(
    "the feed emits three prices", finder: .random(schedules: 20, seed: 5), maxPreemptions: 1,
    reportMentions: "expected exactly 3 event(s), got 6",
    timelineShows: ["the screen receives price 10", "the screen receives price 10"],
    broken: PriceFeed.Flaw.marksItselfStartedLate, correct: nil
  ) { flaw in
    let prices = try await explorePriceFeed(flaw)
    prices.expectCount(3)
    return unless(prices.values == [10, 11, 12], "the feed emits 10, 11, 12; it emitted \(prices.values)")
  }

  // Scenario 6: a stopped tracker records nothing more, wherever in its loop the stop lands.
  static let trackerStops = ExploredCheck(
    "a stopped tracker records no more readings", finder: .random(schedules: 50, seed: 6),
    reportMentions: "a stopped tracker records no more readings",
    timelineShows: ["stops the tracker while a reading is on its way"],
    broken: ActivityTracker.Flaw.recordsAReadingThatArrivesAfterStop, correct: nil
  ) { flaw in
    let (atStop, atEnd) = try await exploreTrackerStop(flaw)
    return unless(
      atEnd == atStop, "a stopped tracker records no more readings; stopped at \(atStop), ended with \(atEnd)"
    )
  }
}

/// Runs every schedule of `strategy` and counts those in which `holds` returned `true` and those
/// in which it did not (or threw), without failing the test.
func tallySchedules(
  _ strategy: ExplorationStrategy, cancellation: CancellationInjection,
  _ holds: @escaping @Sendable () async throws -> Bool
) async -> (passed: Int, failed: Int, result: ExplorationResult) {
  let passed = EventCounter("passing schedules")
  let failed = EventCounter("failing schedules")
  let result = await explore(strategy, cancellation: cancellation) {
    let held = (try? await holds()) ?? false
    (held ? passed : failed).record()
  }
  return (passed.count, failed.count, result)
}

/// Explores the check's broken variant and expects exactly one report, of a failing schedule
/// whose token replays the same failures and timeline — after checking that the bug needs a
/// particular interleaving: among the first schedules within the check's preemption bound, some
/// of the broken variant pass and some fail, so finding it takes exploring, not one run.
@discardableResult
func expectBugFound(
  _ check: ExploredCheck, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ExplorationFailure {
  // The first 300 schedules of the exhaustive search are enough to see both.
  let exhaustive = ExplorationStrategy.exhaustive(maxPreemptions: check.maxPreemptions, limit: 300)
  let tally = await tallySchedules(exhaustive, cancellation: check.cancellation, check.brokenHolds)
  #expect(
    tally.passed > 0 && tally.failed > 0,
    "\(exhaustive): \(tally.passed) schedule(s) of the broken variant passed, \(tally.failed) failed",
    sourceLocation: sourceLocation)
  #expect(tally.passed + tally.failed == tally.result.schedulesRun, sourceLocation: sourceLocation)

  let (result, issues) = await collectingIssues {
    await explore(check.finder, cancellation: check.cancellation, check.broken)
  }
  let failure = try #require(
    result.failure, "\(check.finder) must find the bug of the broken variant",
    sourceLocation: sourceLocation)
  #expect(issues.count == 1, "reported once, at the explore call", sourceLocation: sourceLocation)
  let report = issues.first?.message ?? ""
  #expect(report.contains(check.reportMentions), "\(report)", sourceLocation: sourceLocation)
  #expect(report.contains(".replay(\"\(failure.token)\")"), sourceLocation: sourceLocation)
  #expect(report.contains("Timeline of the schedule:"), sourceLocation: sourceLocation)
  var timeline = Substring(failure.timeline.description)
  for line in check.timelineShows {
    let found = timeline.range(of: line)
    #expect(
      found != nil, "the timeline shows \"\(line)\" next:\n\(failure.timeline)",
      sourceLocation: sourceLocation)
    timeline = found.map { timeline[$0.upperBound...] } ?? ""
  }

  let (replay, replayIssues) = await collectingIssues {
    await explore(.replay(failure.token), check.broken)
  }
  #expect(replayIssues.count == 1, sourceLocation: sourceLocation)
  #expect(replay.failure?.failures == failure.failures, sourceLocation: sourceLocation)
  #expect(replay.failure?.timeline == failure.timeline, sourceLocation: sourceLocation)
  return failure
}

/// Explores the check's correct variant exhaustively within its preemption bound and expects
/// every schedule to pass — after checking that the same bound is enough to find the broken
/// variant's bug, so that passing means something.
@discardableResult
func expectEverySchedulePasses(
  _ check: ExploredCheck, sourceLocation: SourceLocation = #_sourceLocation
) async -> ExplorationResult {
  let exhaustive = ExplorationStrategy.exhaustive(maxPreemptions: check.maxPreemptions)
  let (broken, _) = await collectingIssues {
    await explore(exhaustive, cancellation: check.cancellation, check.broken)
  }
  #expect(
    broken.failure != nil, "\(exhaustive) must find the broken variant's bug", sourceLocation: sourceLocation)
  let result = await explore(exhaustive, cancellation: check.cancellation, check.correct)
  #expect(result.failure == nil && result.isComplete, "\(result)", sourceLocation: sourceLocation)
  #expect(result.schedulesRun > 1, "\(result)", sourceLocation: sourceLocation)
  return result
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationScenarioTests {
  // MARK: Scenario 1, a screen that loads on its own

  @Test func scenario1BrokenProfileIsFound() async throws {
    try await expectBugFound(.cancelledLoad)
  }

  @Test func scenario1CorrectProfilePassesExhaustively() async {
    await expectEverySchedulePasses(.cancelledLoad)
  }

  // MARK: Scenario 2, two reloads finishing out of order

  @Test(arguments: [ExploredCheck.staleAnswer, .obsoleteFailure, .cancelledReload])
  func scenario2BrokenBookScreensAreFound(check: ExploredCheck) async throws {
    try await expectBugFound(check)
  }

  @Test(arguments: [ExploredCheck.staleAnswer, .obsoleteFailure, .cancelledReload])
  func scenario2CorrectBookScreenPassesExhaustively(check: ExploredCheck) async {
    await expectEverySchedulePasses(check)
  }

  // MARK: Scenario 3, debounced search

  @Test(arguments: [ExploredCheck.debouncedSearch, .newestQuery])
  func scenario3BrokenSearchesAreFound(check: ExploredCheck) async throws {
    try await expectBugFound(check)
  }

  @Test(arguments: [ExploredCheck.debouncedSearch, .newestQuery])
  func scenario3CorrectSearchesPassExhaustively(check: ExploredCheck) async {
    await expectEverySchedulePasses(check)
  }

  // MARK: Scenario 4, create if needed, without duplicates

  @Test func scenario4BrokenDraftStoreIsFound() async throws {
    try await expectBugFound(.oneDraft)
  }

  @Test func scenario4CorrectDraftStorePassesExhaustively() async {
    await expectEverySchedulePasses(.oneDraft)
  }

  // MARK: Scenario 5, events that must happen a given number of times

  @Test(arguments: [ExploredCheck.completionOnce, .threePrices])
  func scenario5BrokenEventSourcesAreFound(check: ExploredCheck) async throws {
    try await expectBugFound(check)
  }

  @Test(arguments: [ExploredCheck.completionOnce, .threePrices])
  func scenario5CorrectEventSourcesPassExhaustively(check: ExploredCheck) async {
    await expectEverySchedulePasses(check)
  }

  // MARK: Scenario 6, work that must stop when cancelled

  @Test func scenario6BrokenTrackerIsFound() async throws {
    try await expectBugFound(.trackerStops)
  }

  @Test func scenario6CorrectTrackerPassesExhaustively() async {
    await expectEverySchedulePasses(.trackerStops)
  }
}

// MARK: Scenario 7, replay tokens

/// The two-reload race under exploration, failing when the older answer wins. It throws rather
/// than `#expect`s, so that a thousand replays do not log a thousand known issues.
@Sendable private func staleAnswerRace() async throws {
  let screen = try await exploreTwoReloads(.withoutGenerationCheck)
  guard screen == .newest else { throw ExplorationViolation("the screen ended with \(screen)") }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationReplayTests {
  @Test func aTokenReplaysTheSameFailure1000Times() async throws {
    let (found, _) = await collectingIssues {
      await explore(.pct(schedules: 200, depth: 2, seed: 2), staleAnswerRace)
    }
    let failure = try #require(found.failure)
    // Left to its default choices the scheduler runs a passing schedule, so a replay that fails
    // does so because it follows the token.
    let unguided = await explore(.exhaustive(maxPreemptions: 0, limit: 1), staleAnswerRace)
    #expect(unguided.failure == nil)
    var differing: [String] = []
    for run in 1...1_000 {
      let (replay, issues) = await collectingIssues {
        await explore(.replay(failure.token), staleAnswerRace)
      }
      guard let again = replay.failure, issues.count == 1 else {
        differing.append("run \(run): \(replay), \(issues.count) issue(s)")
        continue
      }
      if again.failures != failure.failures || again.timeline != failure.timeline
        || again.token != failure.token
      {
        differing.append("run \(run): \(again)")
      }
    }
    #expect(differing.isEmpty, "\(differing.count) replays differ; first: \(differing.first ?? "")")
  }

  @Test func tokensFromRandomAndFromPCTBothReproduce() async throws {
    let finders: [ExplorationStrategy] = [
      .random(schedules: 300, seed: 11), .pct(schedules: 300, depth: 2, seed: 11),
    ]
    for finder in finders {
      let (found, _) = await collectingIssues { await explore(finder, staleAnswerRace) }
      let failure = try #require(found.failure, "\(finder) finds the race")
      #expect(failure.strategy == finder.description)
      // Replayed from the token value and from the text that the report prints.
      for replayed in [ExplorationStrategy.replay(failure.token), .replay(failure.token.description)] {
        let (replay, issues) = await collectingIssues { await explore(replayed, staleAnswerRace) }
        #expect(issues.count == 1, "\(finder)")
        #expect(replay.schedulesRun == 1 && !replay.isComplete, "\(finder): \(replay)")
        #expect(replay.failure?.failures == failure.failures, "\(finder)")
        #expect(replay.failure?.timeline == failure.timeline, "\(finder)")
      }
    }
  }
}
