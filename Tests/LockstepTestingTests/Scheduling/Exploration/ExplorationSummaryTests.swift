import Foundation
import LockstepReports
import LockstepTestSupport
import Testing

@testable import LockstepTesting

// The JSON summary explorations at CI scale write to LOCKSTEP_REPORTS, and its merge over shards
// by the code lockstep-report runs.

/// A new, empty folder for one test, removed after `body`.
private func inNewFolder<T>(
  isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
) async rethrows -> T {
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("lockstep-summary-tests-\(UUID().uuidString)").path
  defer { try? FileManager.default.removeItem(atPath: folder) }
  return try await TimelinePictureReport.$folderOverride.withValue(.init(path: folder)) {
    try await body(folder)
  }
}

/// The summaries in `folder`.
private func summaries(in folder: String) -> [ExplorationSummary] {
  let (files, _) = SummaryFiles.find(in: [folder])
  let (read, unreadable) = SummaryFiles.read(files)
  #expect(unreadable.isEmpty, "\(unreadable)")
  return read
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationSummaryTests {
  @Test func fourShardsOfAnExhaustiveSearchMergeToTheUnshardedSearch() async throws {
    let whole = await explore(.exhaustive(maxPreemptions: 2)) { try await twoWriters(checked: false) }
    #expect(whole.isComplete && whole.schedulesRun == 35, "\(whole)")
    try await inNewFolder { folder in
      for index in 1...4 {
        let shard = await withEnvironment(["LOCKSTEP_SHARD": "\(index)/4"]) {
          await explore(.exhaustive(maxPreemptions: 2)) { try await twoWriters(checked: false) }
        }
        #expect(shard.isComplete && shard.failure == nil)
      }
      let written = summaries(in: folder)
      #expect(written.compactMap(\.shard?.index).sorted() == [1, 2, 3, 4])
      let verdict = MatrixVerdict(written)
      let exploration = try #require(verdict.explorations.first)
      #expect(verdict.explorations.count == 1)
      #expect(exploration.schedules == whole.schedulesRun)
      #expect(exploration.covered && verdict.passed)
      #expect(exploration.test == "fourShardsOfAnExhaustiveSearchMergeToTheUnshardedSearch()")
      #expect(exploration.kind == "exhaustive")

      // Without shard 3's summary, the shard is missing and the verdict fails.
      let (files, _) = SummaryFiles.find(in: [folder])
      let third = try #require(files.first { $0.contains("-shard-3-of-4-") })
      try FileManager.default.removeItem(atPath: third)
      let partial = MatrixVerdict(summaries(in: folder))
      #expect(partial.explorations.first?.missingShards == [3])
      #expect(!partial.passed && partial.table.contains("FAILED: 1 missing shard(s)"))
    }
  }

  @Test func aFailingExplorationWritesItsFailureTokenAndModes() async throws {
    try await inNewFolder { folder in
      let (result, issues) = await collectingIssues {
        await explore(.exhaustive(maxPreemptions: 1)) { try await twoWriters(checked: true) }
      }
      let line = #line - 2
      let failure = try #require(result.failure)
      #expect(issues.count == 1)
      let written = summaries(in: folder)
      let summary = try #require(written.first)
      #expect(written.count == 1)
      #expect(summary.version == 1)
      #expect(summary.test == "aFailingExplorationWritesItsFailureTokenAndModes()")
      #expect(summary.callSite == "LockstepTestingTests/ExplorationSummaryTests.swift:\(line)")
      #expect(summary.strategy == "exhaustive(maxPreemptions: 1, limit: 100000)")
      #expect(summary.parameters == .init(maxPreemptions: 1, limit: 100_000))
      #expect(summary.shard == nil && !summary.complete)
      #expect(summary.schedulesRun == result.schedulesRun)
      #expect(summary.failure?.token == "\(failure.token)")
      #expect(summary.failure?.schedule == failure.schedule)
      #expect(summary.failure?.message.hasPrefix("The body threw") == true, "\(summary)")
      #expect(summary.hashingDeterministic == result.hashingIsDeterministic)
      #expect(summary.virtualTime == (VirtualNowSupport.unavailableReason == nil))
      // Beside the picture of the failure.
      let names = try FileManager.default.contentsOfDirectory(atPath: folder)
      #expect(names.contains { $0.hasSuffix(".svg") }, "\(names)")
    }
  }

  @Test func onlyExplorationsAtCIScaleWriteOne() async {
    await inNewFolder { folder in
      // Short on a clock that stands still: a loaded machine (the thread sanitizer, the other
      // tests' explorations) cannot make it take two seconds.
      let still = Locked(Duration.zero)
      _ = await withClock(still) {
        await explore(.random(schedules: 5, seed: 1)) { try await twoWriters(checked: false) }
      }
      #expect(summaries(in: folder).isEmpty, "short, passing, not scaled: no summary")
      let scaled = await withClock(still) {
        await withEnvironment(["LOCKSTEP_EXPLORE_SCALE": "2"]) {
          await explore(.random(schedules: 5, seed: 1)) { try await twoWriters(checked: false) }
        }
      }
      let written = summaries(in: folder)
      #expect(written.count == 1)
      #expect(written.first?.settings == ["LOCKSTEP_EXPLORE_SCALE=2"])
      #expect(written.first?.strategyAsRun == "random(schedules: 10, seed: 1)")
      #expect(written.first?.parameters == .init(schedules: 10, seed: 1))
      #expect(written.first?.schedulesRun == scaled.schedulesRun && written.first?.complete == true)
      // Long work writes one too: each schedule takes a second of a clock the test moves.
      let now = Locked(Duration.zero)
      _ = await withClock(now) {
        await explore(.random(schedules: 3, seed: 1)) {
          try await twoWriters(checked: false)
          now.withLock { $0 += .seconds(1) }
        }
      }
      let long = summaries(in: folder).filter { $0.strategy == "random(schedules: 3, seed: 1)" }
      #expect(long.count == 1 && long.first?.elapsedSeconds == 3)
    }
  }
}

/// Three writers that each yield, then write their number: the body fails when they wrote in
/// reverse, an order some schedules of every strategy reach, but not the first.
@Sendable private func threeWriters() async throws {
  let order = Locked<[Int]>([])
  let writers = (1...3).map { number in
    Task {
      await Task.yield()  // allowed: a choice point for the explored schedules
      order.withLock { $0.append(number) }
    }
  }
  for writer in writers { await writer.value }
  if order.value == [3, 2, 1] { throw Reversed() }
}

private struct Reversed: Error {}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ShardedFirstFailureTests {
  /// The merge of three shards' summaries names the failure the unsharded run reports, with its
  /// number and token: random schedules are numbered over all shards, and a sharded exhaustive
  /// search's subtrees are searched exactly as the unsharded search searches them.
  @Test(arguments: [ExplorationStrategy.random(schedules: 300, seed: 3), .exhaustive(maxPreemptions: 2)])
  func theMergedFirstFailureOfThreeShardsIsTheUnshardedRunsFailure(_ strategy: ExplorationStrategy)
    async throws
  {
    try await inNewFolder { folder in
      let (whole, _) = await collectingIssues { await explore(strategy, threeWriters) }
      let unsharded = try #require(whole.failure)
      #expect(unsharded.schedule > 3, "late enough that the shards' own numbers differ from it")
      for index in 1...3 {
        _ = await withEnvironment(["LOCKSTEP_SHARD": "\(index)/3"]) {
          await collectingIssues { await explore(strategy, threeWriters) }
        }
      }
      let verdict = MatrixVerdict(summaries(in: folder))
      let sharded = try #require(verdict.explorations.first { $0.shardCount == 3 })
      let first = try #require(sharded.firstFailure)
      #expect(first.overallSchedule == unsharded.schedule, "\(verdict.table)")
      #expect(first.token == "\(unsharded.token)", "\(verdict.table)")
    }
  }
}

/// A counter whose `increment` reads, awaits, then writes: two increments can both return 1.
private actor LosingCounter {
  private var count = 0
  func increment() async -> Int {
    let read = count
    await Task.yield()
    count = read + 1
    return count
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct LinearizabilitySummaryTests {
  @Test func aCheckLeavesOneSummaryForAllItsScenariosWithATokenThatNamesTheScenario() async throws {
    let operations: [LinearizabilityOperation<LosingCounter, Never>] = [
      .call("increment") { await $0.increment() }
    ]
    try await inNewFolder { folder in
      let (result, _) = await collectingIssues {
        await checkLinearizability(of: { LosingCounter() }, operations: operations)
      }
      let failure = try #require(result.failure)
      let written = summaries(in: folder)
      #expect(written.count == 1)
      #expect(written.first?.failure?.token == failure.token && failure.token.hasPrefix("C1."))
      #expect(written.first?.schedulesRun == result.schedulesRun)
      #expect(written.first?.complete == false)
    }
  }
}
