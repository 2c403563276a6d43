import LockstepTesting
import Testing
import XCTest

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

/// A replay must say when it does not follow its token's schedule — here because the code under
/// test resumes its waiters in another order than when the token was recorded, as code that
/// iterates a dictionary does when hashing is not deterministic.
@Suite(.timeLimit(.minutes(1)))
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
