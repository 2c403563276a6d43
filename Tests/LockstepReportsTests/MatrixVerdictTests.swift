import Foundation
import LockstepReports
import Testing

// The merge of a CI matrix's summaries, pure: schedules summed over shards, missing shards,
// coverage, failures with their tokens and shards; and the files it reads.

private func summary(
  _ test: String = "newestReloadWins()", shard: (Int, Int)?, schedules: Int, shape: Int = 0,
  complete: Bool = true, ranOutOfTime: Bool = false, kind: String = "exhaustive",
  failure: ExplorationSummary.Failure? = nil
) -> ExplorationSummary {
  ExplorationSummary(
    test: test, callSite: "ReaderTests/ReaderTests.swift:42",
    strategy: "exhaustive(maxPreemptions: 2, limit: 100000)",
    strategyAsRun: "exhaustive(maxPreemptions: 2, limit: 100000)", kind: kind,
    parameters: .init(maxPreemptions: 2, limit: 100_000),
    shard: shard.map { .init(index: $0.0, count: $0.1) }, schedulesRun: schedules,
    shapeSchedules: shape, distinctSchedules: schedules, elapsedSeconds: 1.5, complete: complete,
    ranOutOfTime: ranOutOfTime, failure: failure)
}

/// The cells of a table row: what the runs of two or more spaces separate.
private func cells(_ line: Substring) -> [String] {
  line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
    !$0.isEmpty
  }
}

@Suite(.timeLimit(.minutes(1)))
struct MatrixVerdictTests {
  @Test func theShardsOfOneSearchMergeToItsSchedulesLessTheShapeRuns() throws {
    let verdict = MatrixVerdict([
      summary(shard: (2, 4), schedules: 30, shape: 3), summary(shard: (1, 4), schedules: 25, shape: 2),
      summary(shard: (4, 4), schedules: 20), summary(shard: (3, 4), schedules: 28, shape: 1),
    ])
    let exploration = try #require(verdict.explorations.first)
    #expect(verdict.explorations.count == 1)
    #expect(exploration.schedules == 97 && exploration.shardCount == 4)
    #expect(exploration.summaries.map { $0.shard?.index } == [1, 2, 3, 4])
    #expect(exploration.covered && exploration.missingShards.isEmpty && verdict.passed)
    let row = verdict.table.split(separator: "\n").dropFirst().first.map(cells)
    #expect(
      row == [
        "newestReloadWins()", "ReaderTests/ReaderTests.swift:42",
        "exhaustive(maxPreemptions: 2, limit: 100000)", "4/4", "97", "1.5 s", "yes",
      ])
    #expect(
      verdict.table.hasSuffix("PASSED: 1 exploration(s), 97 schedule(s) over all shards; all covered.\n"))
  }

  @Test func aMissingShardIsReportedAndFailsTheVerdict() throws {
    let verdict = MatrixVerdict([
      summary(shard: (1, 4), schedules: 25), summary(shard: (2, 4), schedules: 30),
      summary(shard: (4, 4), schedules: 20),
    ])
    let exploration = try #require(verdict.explorations.first)
    #expect(exploration.missingShards == [3])
    #expect(!exploration.covered && !verdict.passed)
    #expect(exploration.shortfall == "shard 3 missing")
    #expect(verdict.table.contains("newestReloadWins() at ReaderTests/ReaderTests.swift:42: 3/4"))
    #expect(verdict.table.contains("FAILED: 1 missing shard(s)"), "\(verdict.table)")
  }

  @Test func aSearchIsCompleteOnlyIfEveryShardWas() throws {
    let verdict = MatrixVerdict([
      summary(shard: (1, 2), schedules: 25),
      summary(shard: (2, 2), schedules: 30, complete: false, ranOutOfTime: true),
    ])
    let exploration = try #require(verdict.explorations.first)
    #expect(!exploration.covered && verdict.passed, "not covered, but nothing failed")
    #expect(exploration.shortfall == "time budget ran out in shard 2")
    #expect(verdict.table.contains("no: time budget ran out in shard 2"), "\(verdict.table)")
    #expect(verdict.table.contains("PASSED: 1 exploration(s), 55 schedule(s) over all shards; 1 not covered"))
  }

  @Test func failuresAreListedWithTheirTokensAndShards() throws {
    let failure = ExplorationSummary.Failure(
      token: "L2.AQAIAkRVAgAA-vMU9srOaw", schedule: 731, shard: .init(index: 2, count: 2),
      message: "Expectation failed: book == newest")
    let verdict = MatrixVerdict([
      summary(shard: (1, 2), schedules: 1_000, kind: "pct"),
      summary(shard: (2, 2), schedules: 731, complete: false, kind: "pct", failure: failure),
      summary("otherTest()", shard: nil, schedules: 12),
    ])
    #expect(verdict.explorations.map(\.test) == ["newestReloadWins()", "otherTest()"])
    #expect(!verdict.passed)
    let failed = try #require(verdict.explorations.first)
    #expect(failed.failures == [failure] && failed.shortfall == "failed")
    #expect(
      verdict.table.contains(
        "newestReloadWins() at ReaderTests/ReaderTests.swift:42, shard 2/2, schedule 731: "
          + "Expectation failed: book == newest\n    replay it with: .replay(\"L2.AQAIAkRVAgAA-vMU9srOaw\")"),
      "\(verdict.table)")
    #expect(verdict.table.contains("FAILED: 1 failure(s); 2 exploration(s), 1,743 schedule(s)"))
  }

  @Test func theFirstFailureIsTheLowestScheduleOverAllShardsNotTheFirstShards() throws {
    // Random and PCT shard k of n runs schedule numbers k, k + n, …: shard 1's 9th is number 17,
    // shard 2's 1st is number 2, the one the unsharded exploration stops at.
    let later = ExplorationSummary.Failure(
      token: "L2.LATER", schedule: 9, shard: .init(index: 1, count: 2), message: "late", overallSchedule: 17)
    let earlier = ExplorationSummary.Failure(
      token: "L2.EARLY", schedule: 1, shard: .init(index: 2, count: 2), message: "early", overallSchedule: 2)
    let verdict = MatrixVerdict([
      summary(shard: (1, 2), schedules: 9, complete: false, kind: "random", failure: later),
      summary(shard: (2, 2), schedules: 1, complete: false, kind: "random", failure: earlier),
    ])
    let exploration = try #require(verdict.explorations.first)
    #expect(exploration.firstFailure == earlier)
    #expect(exploration.failures == [earlier, later])
    let lines = verdict.table.split(separator: "\n")
    let first = try #require(lines.firstIndex { $0.contains("schedule 2 (schedule 1 of shard 2/2): early") })
    let second = try #require(lines.firstIndex { $0.contains("schedule 17 (schedule 9 of shard 1/2): late") })
    #expect(first < second, "\(verdict.table)")
    #expect(verdict.table.contains("the first is the one its unsharded run meets first"))
    // A pinned token fails in every shard before any new schedule; a checkLinearizability
    // scenario that failed earlier comes first whatever its schedule.
    let pinned = ExplorationSummary.Failure(
      token: "L2.P", schedule: 0, shard: .init(index: 2, count: 2), message: "")
    #expect(pinned.precedes(earlier) && !earlier.precedes(pinned))
    var scenario2 = earlier
    scenario2.scenario = 2
    var scenario1 = later
    scenario1.scenario = 1
    #expect(scenario1.precedes(scenario2))
  }

  @Test func aShardedSearchsFirstFailureIsInTheLowestSubtreeAndNumberedOverAllShards() throws {
    // Subtrees 0 and 2 are shard 2's, 1 and 3 shard 1's. Shard 2 failed at the 3rd schedule of
    // subtree 2, after all 7 of subtree 0; shard 1 searched all 5 of subtree 1 and failed in 3.
    let inSubtree2 = ExplorationSummary.Failure(
      token: "L2.TWO", schedule: 11, shard: .init(index: 2, count: 2), message: "two", subtree: 2,
      subtreeSchedule: 3)
    let inSubtree3 = ExplorationSummary.Failure(
      token: "L2.THREE", schedule: 9, shard: .init(index: 1, count: 2), message: "three", subtree: 3,
      subtreeSchedule: 2)
    var first = summary(shard: (1, 2), schedules: 9, complete: false, failure: inSubtree3)
    first.subtreeSchedules = [0, 5, 0, 2]
    var second = summary(shard: (2, 2), schedules: 11, complete: false, failure: inSubtree2)
    second.subtreeSchedules = [7, 0, 3]
    let exploration = try #require(MatrixVerdict([first, second]).explorations.first)
    #expect(exploration.failures.map(\.token) == ["L2.TWO", "L2.THREE"])
    // 7 + 5 schedules before subtree 2, then its 3rd: the unsharded search's 15th.
    #expect(exploration.firstFailure?.overallSchedule == 15)
    // Subtree 2 was not searched to its end (shard 2 stopped in it): the later one has no number.
    #expect(exploration.failures.last?.overallSchedule == nil)
    let table = MatrixVerdict([first, second]).table
    #expect(table.contains("schedule 15 (schedule 11 of shard 2/2): two"), "\(table)")
    #expect(table.contains("shard 1/2, schedule 9 (subtree 3): three"), "\(table)")
    // Without shard 1's summary, subtree 1's size is unknown, and so is the number.
    let alone = try #require(MatrixVerdict([second]).explorations.first)
    #expect(alone.firstFailure?.overallSchedule == nil && alone.firstFailure?.token == "L2.TWO")
  }

  @Test func aShardSeenTwiceIsCountedAndSaidAndDifferentSplitsStayApart() {
    let verdict = MatrixVerdict([
      summary(shard: (1, 2), schedules: 10), summary(shard: (1, 2), schedules: 10),
      summary(shard: (2, 2), schedules: 10), summary(shard: (1, 1), schedules: 40),
    ])
    #expect(verdict.explorations.map(\.shardCount) == [1, 2])
    #expect(verdict.explorations.map(\.repeatedShards) == [[], [1]])
    #expect(verdict.explorations.map(\.schedules) == [40, 30])
    #expect(verdict.table.contains("Shards with more than one summary"))
  }

  @Test func aSummaryRoundTripsAndAFileOfANewerVersionIsRefusedWithAReason() throws {
    let original = summary(shard: (1, 2), schedules: 10)
    let data = try SummaryFiles.encode(original)
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains("\"version\" : 1"), "\(text)")
    #expect(text.contains("\"schedulesRun\" : 10"))
    #expect(try SummaryFiles.decode(data).get() == original)
    let newer = Data(text.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2").utf8)
    guard case .failure(let reason) = SummaryFiles.decode(newer) else {
      Issue.record("a summary of version 2 was read")
      return
    }
    #expect(reason.text.contains("version 2, newer than the 1"))
    guard case .failure(let notOurs) = SummaryFiles.decode(Data("{\"a\": 1}".utf8)) else {
      Issue.record("an object without a version was read")
      return
    }
    #expect(notOurs.text.contains("no \"version\" field"))
    // A field a later version adds is ignored.
    let extended = Data(
      text.replacingOccurrences(
        of: "{", with: "{\"addedLater\": true,", options: [], range: text.range(of: "{")
      ).utf8)
    #expect(try SummaryFiles.decode(extended).get() == original)
  }

  @Test func theSummariesAreFoundInSubfoldersAndAMissingFolderIsSaid() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "lockstep-report-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let nested = root.appendingPathComponent("shard-1/reports")
    try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
    try SummaryFiles.encode(summary(shard: (1, 1), schedules: 3)).write(
      to: nested.appendingPathComponent("lockstep-summary-a-1.json"))
    try Data("<svg/>".utf8).write(to: nested.appendingPathComponent("lockstep-a-1.svg"))
    try Data("{}".utf8).write(to: root.appendingPathComponent("lockstep-summary-broken-1.json"))
    let (files, missing) = SummaryFiles.find(in: [root.path, root.path + "-absent"])
    #expect(files.count == 2 && missing == [root.path + "-absent"])
    let (summaries, unreadable) = SummaryFiles.read(files)
    #expect(summaries.map(\.schedulesRun) == [3])
    #expect(unreadable.map(\.reason) == ["no \"version\" field: not a Lockstep summary"])
  }
}
