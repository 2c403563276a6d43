import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// Explores the stand-in for a dictionary order (ascending ids) until a schedule fails, and
/// returns that failure.
private func failureInAscendingOrder() async throws -> ExplorationFailure {
  let (found, _) = await collectingIssues {
    await explore(.random(schedules: 100, seed: 1)) {
      try await subscribersReceiveInOrder(reversed: false)
    }
  }
  return try #require(found.failure, "some schedule delivers out of order")
}

/// What two writers wrote, in order.
private actor WriteLog {
  private(set) var entries: [String] = []
  func write(_ entry: String) { entries.append(entry) }
}

private struct WrittenOutOfOrder: Error, CustomStringConvertible {
  let entries: [String]
  var description: String { "the writers wrote \(entries)" }
}

/// Two writers; fails when the second wrote first. With `takingAnotherPath`, the body yields once
/// more between starting them — a suspension the recorded schedule never saw — and checks
/// nothing, so that every schedule passes.
@Sendable private func twoWriters(takingAnotherPath: Bool) async throws {
  let log = WriteLog()
  let first = Task { await log.write("first") }
  // The extra yield is the subject: the path a replay takes that its token did not record.
  if takingAnotherPath { await Task.yield() }
  let second = Task { await log.write("second") }
  await first.value
  await second.value
  let entries = await log.entries
  guard takingAnotherPath || entries == ["first", "second"] else {
    throw WrittenOutOfOrder(entries: entries)
  }
}

/// A replay must say when it does not follow its token's schedule — here because the code under
/// test resumes its waiters in another order than when the token was recorded, as code that
/// iterates a dictionary does when hashing is not deterministic.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ReplayDivergenceTests {
  @Test func aReplayThatRunsAnotherScheduleSaysWhereItDiverged() async throws {
    let failure = try await failureInAscendingOrder()
    let (replay, issues) = await collectingIssues {
      await explore(.replay(failure.token)) { try await subscribersReceiveInOrder(reversed: true) }
    }
    #expect(replay.schedulesRun == 1)
    #expect(issues.count == 1, "one report: \(issues.map(\.message))")
    let report = issues.first?.message ?? ""
    #expect(report.contains("did not follow"), "\(report)")
    #expect(report.contains("choice point"), "names where it diverged: \(report)")
    let divergence = try #require(replay.divergence)
    #expect(!replay.isComplete, "a replay that left its schedule did not run it")
    let point = try #require(divergence.choicePoint)
    #expect(point >= 1)
    #expect(report.contains("choice point \(point)"))
    if let step = divergence.step { #expect(report.contains("step \(step)")) }
  }

  @Test func aReplayThatFollowsItsTokenReportsNoDivergence() async throws {
    let failure = try await failureInAscendingOrder()
    let (replay, issues) = await collectingIssues {
      await explore(.replay(failure.token)) { try await subscribersReceiveInOrder(reversed: false) }
    }
    #expect(replay.divergence == nil)
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("did not follow") == false)
    #expect(replay.failure?.timeline == failure.timeline)
  }

  /// A replay that leaves its token's schedule and then passes has reproduced nothing and checked
  /// another schedule: `explore` reports it as a misuse (it fails the test) and names where.
  @Test(arguments: [true, false])
  func aReplayThatTakesAnotherPathAndPassesIsReported(hashingIsDeterministic: Bool) async throws {
    let (found, _) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1)) { try await twoWriters(takingAnotherPath: false) }
    }
    let failure = try #require(found.failure, "some schedule lets the second writer write first")
    let (replay, issues) = await HashingDeterminism.$assumed.withValue(hashingIsDeterministic) {
      await collectingIssues {
        await explore(.replay(failure.token)) { try await twoWriters(takingAnotherPath: true) }
      }
    }
    #expect(replay.failure == nil, "\(replay)")
    #expect(replay.schedulesRun == 1)
    let divergence = try #require(replay.divergence, "the replay must say it left the schedule")
    expectOneIssue(
      issues, containing: "did not follow its token's schedule", divergence.description,
      divergence.likelyCause)
    #expect(divergence.hashingIsDeterministic == hashingIsDeterministic)
    #expect(
      divergence.likelyCause.hasPrefix(
        hashingIsDeterministic
          ? "Likely cause: the code under test changed"
          : "Likely cause: hashing is not deterministic in this process"),
      "\(divergence.likelyCause)")
    #expect(divergence.description.hasSuffix(divergence.likelyCause))
  }

  /// The dictionary's iteration order, varied deterministically: the token is recorded with the
  /// subscribers resumed in ascending order, then replayed once with each order of the three.
  /// The replay in the recorded order follows it; every other order leaves the schedule at the
  /// broadcast and says so. None runs another schedule in silence.
  @Test func aReplayInEachIterationOrderFollowsOrSaysItDidNot() async throws {
    let failure = try await failureInAscendingOrder()
    var followed: [[Int]] = []
    var reported: [[Int]] = []
    var silent: [String] = []
    for permutation in Interleavings.all(of: [1, 2, 3]) {
      let (replay, issues) = await collectingIssues {
        await explore(.replay(failure.token)) {
          let ids = await broadcastToThree { ids in permutation.order.filter(ids.contains) }
          guard ids == [1, 2, 3] else { throw OutOfOrder(ids: ids) }
        }
      }
      let said = issues.contains { $0.message.contains("did not follow") }
      if replay.failure?.timeline == failure.timeline && replay.divergence == nil && !said {
        followed.append(permutation.order)
      } else if said && replay.divergence != nil {
        reported.append(permutation.order)
      } else {
        silent.append("\(permutation): \(replay)")
      }
    }
    #expect(followed == [[1, 2, 3]])
    #expect(reported.count == 5, "\(reported)")
    #expect(silent.isEmpty, "\(silent)")
  }

  /// At each choice point the replay checks that the token's choice runs the task it ran when
  /// recorded. Here as many jobs are ready as then, in another order (subscriber 2 is resumed
  /// first): the count matches, the task does not, and the replay says so at that point.
  @Test func aReplayWhoseChoiceRunsAnotherTaskSaysSoAtThatChoicePoint() async throws {
    let failure = try await failureInAscendingOrder()
    let (replay, issues) = await collectingIssues {
      await explore(.replay(failure.token)) {
        let ids = await broadcastToThree { ids in [2, 1, 3].filter(ids.contains) }
        guard ids == [1, 2, 3] else { throw OutOfOrder(ids: ids) }
      }
    }
    let divergence = try #require(replay.divergence, "\(replay)")
    let point = try #require(divergence.choicePoint, "at a choice point: \(divergence)")
    #expect(
      divergence.difference.hasSuffix("where the recorded schedule ran another task"),
      "\(divergence.difference)")
    expectOneIssue(issues, containing: "did not follow its token's schedule", "choice point \(point)")
  }

  /// The real thing: a dictionary of subscribers. Whatever the process's hashing, a replay either
  /// runs exactly the recorded schedule (the same timeline) or says that it did not — never
  /// another schedule in silence.
  @Test func replaysOfADictionaryOrderWorkloadNeverDivergeSilently() async throws {
    let (found, _) = await collectingIssues {
      await explore(.random(schedules: 100, seed: 1), subscribersReceiveInOrder)
    }
    let failure = try #require(found.failure)
    var silent: [String] = []
    var reported = 0
    for run in 1...20 {
      let (replay, issues) = await collectingIssues {
        await explore(.replay(failure.token), subscribersReceiveInOrder)
      }
      let said = issues.contains { $0.message.contains("did not follow") }
      if replay.failure?.timeline == failure.timeline && replay.failure?.failures == failure.failures {
        #expect(!said, "run \(run) followed its schedule but reported a divergence")
      } else if said {
        reported += 1
      } else {
        silent.append("run \(run): \(replay)")
      }
    }
    #expect(silent.isEmpty, "\(silent.count) replays ran another schedule silently: \(silent)")
    // Which replays diverge depends on the hash seed, unless hashing is deterministic: then the
    // dictionary iterates the same way every run and every replay follows. (The split between
    // following and reporting, with a varying seed, is tested deterministically above.)
    if HashingDeterminism.inProcess {
      #expect(reported == 0, "with deterministic hashing every replay follows its token")
    }
  }
}

final class ReplayDivergenceXCTests: XCTestCase {
  func testAReplayThatRunsAnotherScheduleSaysWhereItDiverged() async throws {
    let (found, _) = await collectingIssues {
      await explore(.random(schedules: 100, seed: 1)) {
        try await subscribersReceiveInOrder(reversed: false)
      }
    }
    let failure = try XCTUnwrap(found.failure)
    let (replay, issues) = await collectingIssues {
      await explore(.replay(failure.token.description)) {
        try await subscribersReceiveInOrder(reversed: true)
      }
    }
    XCTAssertEqual(issues.count, 1)
    let report = issues.first?.message ?? ""
    XCTAssertTrue(report.contains("did not follow"), report)
    let point = try XCTUnwrap(replay.divergence?.choicePoint)
    XCTAssertTrue(report.contains("choice point \(point)"), report)
  }
}
