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
