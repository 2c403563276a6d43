import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

@testable import LockstepTesting

// Exploration at CI scale: budgets and shards from the environment, and pinned tokens. The
// environment is read once per process; these tests replace it in a task
// (`ExplorationEnvironment.override`) to act as if the process had started with a variable set.

/// The order in which the writers of each run wrote, run after run.
final class WriterLog: Sendable {
  let runs = Locked<[[Int]]>([])
}

/// Two writers wrote in the wrong order.
struct WrongOrder: Error, CustomStringConvertible {
  let written: [Int]
  var description: String { "2 wrote before 1: \(written)" }
}

/// Two tasks that each write their number after a yield; `checked`, the body throws when 2 wrote
/// first — which only some schedules do (a thrown error fails a schedule from either framework).
/// `extraYield` is a change of the code under test: the second writer yields twice.
@Sendable func twoWriters(_ log: WriterLog? = nil, checked: Bool, extraYield: Bool = false) async throws {
  let order = Locked<[Int]>([])
  let first = Task {
    await Task.yield()  // allowed: a choice point for the explored schedules
    order.withLock { $0.append(1) }
  }
  let second = Task {
    if extraYield { await Task.yield() }  // allowed: as above
    await Task.yield()  // allowed: as above
    order.withLock { $0.append(2) }
  }
  await first.value
  await second.value
  let written = order.value
  log?.runs.withLock { $0.append(written) }
  if checked && written != [1, 2] { throw WrongOrder(written: written) }
}

/// A main-actor model whose two steps around a yield can be preempted from another task.
@MainActor private final class Tally {
  var value = 0
  func bump() async {
    value += 1
    await Task.yield()  // allowed: a choice point for the explored schedules
    value += 1
  }
}

/// Two tasks bumping one tally: more schedules with each preemption allowed (35, 213, 527).
@Sendable private func twoBumps() async {
  let tally = Tally()
  let first = Task { await tally.bump() }
  let second = Task { await tally.bump() }
  await first.value
  await second.value
}

/// Runs `body` as if the process had started with `variables` in its environment.
func withEnvironment<T>(
  _ variables: [String: String], isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> T
) async rethrows -> T {
  try await ExplorationEnvironment.$override.withValue(ExplorationEnvironment(variables)) {
    try await body()
  }
}

/// Runs `body` with the clock of explorations reading `now`, which the test moves; progress lines
/// are off unless the test reads them (its seconds pass at once).
func withClock<T>(
  _ now: Locked<Duration>, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async rethrows -> T {
  let progress = ProgressReporter.override ?? ProgressReporter.Output(mode: .off) { _ in }
  return try await ProgressReporter.$override.withValue(progress) {
    try await ExplorationClock.$reading.withValue({ now.value }, operation: body)
  }
}

/// The token of a schedule in which 2 writes first, and its report.
func writersToken() async -> (token: ReplayToken, report: String)? {
  let (result, issues) = await collectingIssues {
    await explore(.exhaustive(maxPreemptions: 1)) { try await twoWriters(checked: true) }
  }
  return result.failure.map { ($0.token, issues.first?.message ?? "") }
}

/// Every schedule fails with it.
struct AlwaysFails: Error {}

/// A token of the default schedule (1 writes first), which passes: explored with a check that
/// fails on every schedule, so the first, default one is reported.
func defaultScheduleToken() async -> ReplayToken? {
  let (result, _) = await collectingIssues {
    await explore(.exhaustive(maxPreemptions: 0, limit: 1)) {
      try await twoWriters(checked: false)
      throw AlwaysFails()
    }
  }
  return result.failure?.token
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationAtScaleTests {
  // MARK: The budget

  @Test func theScaleMultipliesTheSchedulesAndTheReportSaysSo() async {
    let result = await withEnvironment(["LOCKSTEP_EXPLORE_SCALE": "3"]) {
      await explore(.random(schedules: 10, seed: 2)) { try await twoWriters(checked: false) }
    }
    #expect(result.schedulesRun == 30 && result.isComplete)
    #expect(result.strategy == "random(schedules: 10, seed: 2)", "as written")
    #expect(
      result.description.hasPrefix(
        "explore random(schedules: 10, seed: 2), run as random(schedules: 30, seed: 2) by "
          + "LOCKSTEP_EXPLORE_SCALE=3: 30 schedule(s)"), "\(result)")
  }

  @Test func theScaleRaisesTheExhaustiveLimitButNotItsBound() async {
    let whole = await explore(.exhaustive(maxPreemptions: 1), twoBumps)
    #expect(whole.isComplete && whole.schedulesRun == 213)
    let cut = await explore(.exhaustive(maxPreemptions: 1, limit: 100), twoBumps)
    #expect(cut.schedulesRun == 100 && !cut.isComplete)
    let scaled = await withEnvironment(["LOCKSTEP_EXPLORE_SCALE": "10"]) {
      await explore(.exhaustive(maxPreemptions: 1, limit: 100), twoBumps)
    }
    #expect(scaled.isComplete && scaled.schedulesRun == 213, "all of it within the same bound")
    #expect(scaled.description.contains("run as exhaustive(maxPreemptions: 1, limit: 1000)"), "\(scaled)")
    let deeper = await withEnvironment(["LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS": "1"]) {
      await explore(.exhaustive(maxPreemptions: 1), twoBumps)
    }
    #expect(deeper.isComplete && deeper.schedulesRun == 527, "asked for: one more preemption")
    #expect(deeper.description.contains("run as exhaustive(maxPreemptions: 2, limit: 100000)"), "\(deeper)")
  }

  @Test func aTimeBudgetStopsTheExplorationAndTheResultSaysHowManyRan() async {
    // Each schedule takes one second of a clock the test moves; the budget is five.
    let now = Locked(Duration.zero)
    let result = await withClock(now) {
      await explore(.random(schedules: 1_000, seed: 1).forAtMost(.seconds(5))) {
        try await twoWriters(checked: false)
        now.withLock { $0 += .seconds(1) }
      }
    }
    #expect(result.schedulesRun == 5)
    #expect(result.ranOutOfTime && !result.isComplete)
    #expect(result.description.contains("5 schedule(s)"), "\(result)")
    #expect(result.description.contains("stopped when its time budget of 5 s ran out"), "\(result)")
    // LOCKSTEP_EXPLORE_TIME does the same for every exploration; the shorter budget counts.
    now.withLock { $0 = .zero }
    let fromEnvironment = await withEnvironment(["LOCKSTEP_EXPLORE_TIME": "3s"]) {
      await withClock(now) {
        await explore(.random(schedules: 1_000, seed: 1).forAtMost(.seconds(5))) {
          try await twoWriters(checked: false)
          now.withLock { $0 += .seconds(1) }
        }
      }
    }
    #expect(fromEnvironment.schedulesRun == 3 && fromEnvironment.ranOutOfTime)
    #expect(fromEnvironment.description.contains("by LOCKSTEP_EXPLORE_TIME=3s"), "\(fromEnvironment)")
  }

  @Test func aTimeBudgetStopsAnExplorationTooLargeToFinish() async {
    // A millisecond a schedule, on the clock the test moves; a budget of 100 ms.
    let now = Locked(Duration.zero)
    let result = await withClock(now) {
      await explore(.random(schedules: 100_000_000, seed: 1).forAtMost(.milliseconds(100))) {
        try await twoWriters(checked: false)
        now.withLock { $0 += .milliseconds(1) }
      }
    }
    #expect(result.ranOutOfTime && !result.isComplete)
    #expect(result.schedulesRun == 100)
    // On the real clock, a budget that any schedule uses up: the first schedule runs, then the
    // budget has run out, however slow the machine.
    let real = await explore(.random(schedules: 100_000_000, seed: 1).forAtMost(.nanoseconds(1))) {
      try await twoWriters(checked: false)
    }
    #expect(real.ranOutOfTime && real.schedulesRun == 1, "\(real)")
  }

  @Test func aBudgetThatRunsOutStillRunsTheFirstScheduleAndPinnedTokens() async throws {
    let (token, _) = try #require(await writersToken())
    let log = WriterLog()
    let now = Locked(Duration.zero)
    let result = await withClock(now) {
      await explore(.random(schedules: 100, seed: 1).forAtMost(.nanoseconds(1)), pinned: ["\(token)"]) {
        try await twoWriters(log, checked: false)
        now.withLock { $0 += .seconds(1) }
      }
    }
    #expect(result.pinnedPassed == 1 && result.schedulesRun == 1 && result.ranOutOfTime)
    #expect(log.runs.value.count == 2)
  }

  @Test(arguments: [
    ("LOCKSTEP_EXPLORE_SCALE", "lots"), ("LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS", "-1"),
    ("LOCKSTEP_EXPLORE_TIME", "forever"), ("LOCKSTEP_SHARD", "3/2"), ("LOCKSTEP_SEED", "x"),
  ])
  func aBadValueInTheEnvironmentIsReportedAtTheCallAndNothingRuns(_ variable: String, _ value: String) async {
    let ran = EventCounter("schedules run")
    let line = #line + 2
    let (result, issues) = await withEnvironment([variable: value]) {
      await collectingIssues { await explore(.pct(schedules: 5)) { ran.record() } }
    }
    #expect(ran.count == 0 && result.schedulesRun == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.site.line == UInt(line))
    #expect(issues.first?.isWarning == false)
    #expect(issues.first?.message.contains("\(variable)=\(value) is not") == true, "\(issues)")
    #expect(issues.first?.message.hasSuffix("Nothing ran.") == true)
  }

  // MARK: Shards

  @Test func aShardSaysItFoundTheFailureAndItsTokenReplaysInAnyShard() async throws {
    let (result, issues) = await withEnvironment(["LOCKSTEP_SHARD": "2/2"]) {
      await collectingIssues {
        await explore(.random(schedules: 100, seed: 3)) { try await twoWriters(checked: true) }
      }
    }
    let failure = try #require(result.failure)
    #expect(result.shard == ExplorationShard(index: 2, count: 2))
    #expect(failure.shard == ExplorationShard(index: 2, count: 2))
    let report = issues.first?.message ?? ""
    #expect(issues.count == 1)
    #expect(report.contains("in shard 2/2 (LOCKSTEP_SHARD) found a failing schedule"), "\(report)")
    #expect(report.contains("(schedule \(failure.schedule) of shard 2/2)"), "\(report)")
    #expect(report.contains("in any shard, or with no shard set"), "\(report)")
    for shard in [nil, "1/2", "2/2", "1/5"] {
      let (replay, replayIssues) = await withEnvironment(shard.map { ["LOCKSTEP_SHARD": $0] } ?? [:]) {
        await collectingIssues {
          await explore(.replay(failure.token)) { try await twoWriters(checked: true) }
        }
      }
      #expect(replay.shard == nil, "a replay is the same in every shard")
      #expect(replay.failure?.failures == failure.failures, "shard \(shard ?? "none")")
      #expect(replay.failure?.reproduced == true && replayIssues.count == 1)
    }
  }

  @Test func exhaustiveShardsTogetherRunEveryScheduleOnce() async {
    let wholeLog = WriterLog()
    let whole = await explore(.exhaustive(maxPreemptions: 2)) {
      try await twoWriters(wholeLog, checked: false)
    }
    var own = 0
    var orders: Set<[Int]> = []
    for index in 1...3 {
      let log = WriterLog()
      let result = await withEnvironment(["LOCKSTEP_SHARD": "\(index)/3"]) {
        await explore(.exhaustive(maxPreemptions: 2)) { try await twoWriters(log, checked: false) }
      }
      #expect(result.isComplete && result.shard?.index == index)
      own += result.schedulesRun - result.shapeSchedules
      orders.formUnion(log.runs.value)
    }
    #expect(own == whole.schedulesRun)
    #expect(orders == Set(wholeLog.runs.value))
  }

  // MARK: Pinned tokens

  @Test func aReportPrintsTheLineThatPinsItsToken() async throws {
    let (token, report) = try #require(await writersToken())
    #expect(report.contains("with this argument to explore:\n  pinned: [\"\(token)\"]"), "\(report)")
  }

  @Test func pinnedTokensAreReplayedFirstInTheirOrder() async throws {
    let (token, _) = try #require(await writersToken())
    let pass = try #require(await defaultScheduleToken())
    let log = WriterLog()
    let result = await explore(.exhaustive(maxPreemptions: 0, limit: 1), pinned: ["\(token)", "\(pass)"]) {
      try await twoWriters(log, checked: false)
    }
    #expect(result.pinnedPassed == 2 && result.stalePinnedTokens.isEmpty)
    #expect(result.schedulesRun == 1, "pinned replays are not counted as explored")
    // The first run is the pinned schedule in which 2 writes first; the default schedule, which
    // exploration runs first, has 1 first.
    #expect(log.runs.value == [[2, 1], [1, 2], [1, 2]])
    #expect(result.description.contains("2 pinned token(s) replayed their schedule and passed"), "\(result)")
  }

  @Test func aPinnedTokenThatFailsAgainIsTheFailureAndNothingNewIsExplored() async throws {
    let (token, _) = try #require(await writersToken())
    let log = WriterLog()
    let line = #line + 2
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 50, seed: 1), pinned: ["\(token)"]) {
        try await twoWriters(log, checked: true)
      }
    }
    let failure = try #require(result.failure)
    #expect(failure.pinnedToken == "\(token)" && failure.schedule == 0 && failure.token == token)
    #expect(result.schedulesRun == 0 && log.runs.value == [[2, 1]])
    #expect(issues.count == 1 && issues.first?.site.line == UInt(line))
    let report = issues.first?.message ?? ""
    #expect(report.contains("the pinned token \"\(token)\" fails again"), "\(report)")
    #expect(report.contains("2 wrote before 1"), "\(report)")
    #expect(!report.contains("pinned: ["), "it is pinned already")
  }

  @Test func aPinnedTokenThatNoLongerReplaysIsReportedAsStaleAndExplorationGoesOn() async throws {
    let (token, _) = try #require(await writersToken())
    let line = #line + 2
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1), pinned: ["\(token)"]) {
        try await twoWriters(checked: false, extraYield: true)  // the code changed
      }
    }
    #expect(result.stalePinnedTokens == ["\(token)"] && result.pinnedPassed == 0)
    #expect(result.failure == nil && result.isComplete && result.schedulesRun > 1)
    #expect(issues.count == 1 && issues.first?.site.line == UInt(line))
    #expect(issues.first?.isWarning == false)
    let report = issues.first?.message ?? ""
    #expect(report.contains("the pinned token \"\(token)\" is stale"), "\(report)")
    #expect(report.contains("It left the recorded schedule"), "\(report)")
    #expect(result.problem == report && !result.passed)
    #expect(result.description.contains("failed: \(report)"), "\(result)")
  }

  @Test func aNewFailureWithTokensPinnedPrintsTheWholeLine() async throws {
    let pass = try #require(await defaultScheduleToken())
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1), pinned: ["\(pass)"]) {
        try await twoWriters(checked: true)
      }
    }
    let failure = try #require(result.failure)
    #expect(result.pinnedPassed == 1 && failure.pinnedToken == nil)
    #expect(failure.pinnedLine == "pinned: [\"\(pass)\", \"\(failure.token)\"]")
    #expect(issues.first?.message.contains(failure.pinnedLine) == true)
  }

  @Test func textThatIsNotATokenIsReportedAndNothingRuns() async {
    let ran = EventCounter("schedules run")
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 5), pinned: ["L2.not-a-token"]) { ran.record() }
    }
    #expect(ran.count == 0 && result.schedulesRun == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("pinned: \"L2.not-a-token\" is not a replay token") == true)
  }
}

final class ExplorationAtScaleXCTests: XCTestCase {
  func testABadValueInTheEnvironmentIsReportedAtTheCall() async {
    let ran = EventCounter("schedules run")
    let (result, issues) = await withEnvironment(["LOCKSTEP_SHARD": "2"]) {
      await collectingIssues { await explore(.random(schedules: 5)) { ran.record() } }
    }
    XCTAssertEqual(ran.count, 0)
    XCTAssertEqual(result.schedulesRun, 0)
    XCTAssertEqual(issues.count, 1)
    XCTAssertTrue(issues.first?.message.contains("LOCKSTEP_SHARD=2 is not a shard") == true)
  }

  func testPinnedTokensReplayFirstAndAStaleOneIsReported() async throws {
    let found = await writersToken()
    let (token, _) = try XCTUnwrap(found)
    let log = WriterLog()
    let kept = await explore(.exhaustive(maxPreemptions: 0, limit: 1), pinned: ["\(token)"]) {
      try await twoWriters(log, checked: false)
    }
    XCTAssertEqual(kept.pinnedPassed, 1)
    XCTAssertEqual(log.runs.value.first, [2, 1])
    let (stale, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 0), pinned: ["\(token)"]) {
        try await twoWriters(checked: false, extraYield: true)
      }
    }
    XCTAssertEqual(stale.stalePinnedTokens, ["\(token)"])
    XCTAssertEqual(issues.count, 1)
    XCTAssertTrue(issues.first?.message.contains("is stale") == true, issues.first?.message ?? "")
  }
}
