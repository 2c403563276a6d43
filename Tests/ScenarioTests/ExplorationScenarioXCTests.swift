import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import XCTest

/// The two-reload race of scenario 2 under exploration, from XCTest.
///
/// XCTest cannot hold back an `XCTAssert` that fails inside a schedule, so a body that is meant
/// to fail states its invariant by throwing: a thrown error fails only that schedule, and the
/// exploration's one report is held by `collectingIssues`.
final class ExplorationScenarioXCTests: XCTestCase {
  /// Fails the schedule when the older answer won.
  @Sendable private static func brokenTwoReloads() async throws {
    let screen = try await exploreTwoReloads(.withoutGenerationCheck)
    guard screen == .newest else { throw ExplorationViolation("the screen ended with \(screen)") }
  }

  func testTheBugNeedsAParticularInterleaving() async {
    let passed = EventCounter("passing schedules")
    let failed = EventCounter("failing schedules")
    let result = await explore(.exhaustive(maxPreemptions: 2)) {
      do {
        try await Self.brokenTwoReloads()
        passed.record()
      } catch {
        failed.record()
      }
    }
    XCTAssertTrue(result.isComplete && result.failure == nil, "\(result)")
    XCTAssertGreaterThan(passed.count, 0)
    XCTAssertGreaterThan(failed.count, 0)
  }

  func testTheBrokenScreenIsFoundWithoutWritingTheOrder() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.pct(schedules: 200, depth: 2, seed: 2), Self.brokenTwoReloads)
    }
    let failure = try XCTUnwrap(result.failure, "\(result)")
    expectOneIssue(issues, containing: "the screen ended with book: Book 1", ".replay(\"\(failure.token)\")")
    // What sets the failing schedule apart: reload 2 returns before reload 1, which then shows
    // its older book.
    let returns = failure.timeline.entries.flatMap(\.actions).filter { $0.hasPrefix("reload ") }
    XCTAssertEqual(
      returns, ["reload 2 returns; the screen shows Book 2", "reload 1 returns; the screen shows Book 1"])
  }

  func testTheCorrectScreenPassesEveryScheduleWithinTwoPreemptions() async {
    let result = await explore(.exhaustive(maxPreemptions: 2)) {
      let screen = try await exploreTwoReloads(.correct)
      XCTAssertEqual(screen, .newest)
    }
    XCTAssertNil(result.failure)
    XCTAssertTrue(result.isComplete, "\(result)")
  }

  func testTheTokenReplaysTheSameFailure() async throws {
    let (found, _) = await collectingIssues {
      await explore(.random(schedules: 300, seed: 11), Self.brokenTwoReloads)
    }
    let failure = try XCTUnwrap(found.failure)
    for _ in 0..<20 {
      let (replay, issues) = await collectingIssues {
        await explore(.replay(failure.token.description), Self.brokenTwoReloads)
      }
      XCTAssertEqual(issues.count, 1)
      XCTAssertEqual(replay.failure?.failures, failure.failures)
      XCTAssertEqual(replay.failure?.timeline, failure.timeline)
    }
  }

  func testACancelledReloadThatPublishesIsFound() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1), cancellation: .atLockstepWaits) {
        let (screen, cancelled) = try await exploreReloadAnsweredLate(.withoutCancellationCheck)
        if cancelled && screen != .untouched {
          throw ExplorationViolation("a cancelled reload published: \(screen)")
        }
      }
    }
    let failure = try XCTUnwrap(result.failure)
    expectOneIssue(issues, containing: "a cancelled reload published: book: Book 1")
    // The schedules without a cancellation ran first, and passed.
    XCTAssertGreaterThan(failure.schedule, 1)
    let correct = await explore(.exhaustive(maxPreemptions: 2), cancellation: .atLockstepWaits) {
      let (screen, cancelled) = try await exploreReloadAnsweredLate(.correct)
      XCTAssertEqual(screen, cancelled ? .untouched : BookScreen(book: Book(id: 1, title: "Book 1")))
    }
    XCTAssertNil(correct.failure)
    XCTAssertTrue(correct.isComplete)
  }
}
