import Foundation
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

// MARK: - Finding races (FindingRaces.md, scenarios 2 and 7)

/// A reader screen that shows the book of its newest reload — unless it forgets to check.
@MainActor
private final class ReaderModel {
  private(set) var book: String?
  private(set) var newest = 0
  private var generation = 0
  private let checksGeneration: Bool

  init(checksGeneration: Bool) { self.checksGeneration = checksGeneration }

  func reload(_ id: Int) async {
    generation += 1
    let mine = generation
    newest = id
    Timeline.note("requests book \(id)")
    let loaded = await loadBook(id)
    guard !checksGeneration || mine == generation else { return }
    Timeline.note("shows \(loaded)")
    book = loaded
  }
}

/// A loader that answers after a suspension, so answers can arrive in any order.
private func loadBook(_ id: Int) async -> String {
  await Task.yield()  // allowed: a suspension point for the explored schedules
  Timeline.note("loader answers request \(id)")
  return "Book \(id)"
}

/// Two reloads at once; returns the book shown and the newest reload.
private func reloadTwice(checksGeneration: Bool) async -> (book: String?, newest: Int) {
  let model = await ReaderModel(checksGeneration: checksGeneration)
  let first = Task(name: "reload 1") { await model.reload(1) }
  let second = Task(name: "reload 2") { await model.reload(2) }
  await first.value
  await second.value
  return await (model.book, model.newest)
}

/// Two reloads at once; the screen must end up showing the newest one — stated with `#expect`,
/// as the article does.
private func twoReloads(checksGeneration: Bool) async {
  let (book, newest) = await reloadTwice(checksGeneration: checksGeneration)
  #expect(book == "Book \(newest)")
}

private struct StaleBook: Error, CustomStringConvertible {
  let book: String?
  let newest: Int
  var description: String { "shows \(book ?? "nothing") after reload \(newest)" }
}

/// The same invariant, thrown: for the tests whose subject is not how a failed `#expect` reaches
/// explore, so that the failing schedules explore holds back add no known issue to a passing run.
@Sendable private func twoReloadsThrowing(checksGeneration: Bool) async throws {
  let (book, newest) = await reloadTwice(checksGeneration: checksGeneration)
  guard book == "Book \(newest)" else { throw StaleBook(book: book, newest: newest) }
}

/// Publishes what a load returns — even when the load was cancelled meanwhile.
@MainActor
private final class Publisher {
  private(set) var published: Int?
  func load(_ calls: ControlledCalls<Int, Int>) async {
    published = try? await calls.call(1)
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct FindingRacesExamples {
  // The article's examples state the invariant with `#expect`. In a schedule that fails, explore
  // holds that issue back as a known issue (Swift Testing's only way to keep it from failing the
  // test) and reports the exploration once: these two tests are where the known issues of a
  // passing run come from — one for each failing schedule that explore ran (the found one, the
  // shrinker's, the replay before the report) — and their subject is that path.

  @Test func exploreFindsTheStaleResult() async {
    let (result, issues) = await collectingIssues {
      await explore(.pct(schedules: 200, depth: 2, seed: 0)) {
        await twoReloads(checksGeneration: false)
      }
    }
    expectOneIssue(
      issues, containing: "found a failing schedule",
      #"Expectation failed: (book → "Book 1") == ("Book \(newest)" → "Book 2")"#,
      "Replay it exactly with: .replay(\"L2.")
    // The race needs a particular order: the schedules before the failing one passed.
    #expect(result.failure?.schedule ?? 0 > 1)
  }

  @Test func theCorrectModelPassesEverySchedule() async {
    let result = await explore(.exhaustive(maxPreemptions: 2)) {
      await twoReloads(checksGeneration: true)
    }
    #expect(result.failure == nil)
    #expect(result.isComplete)

    // Passing means something: the same bound finds the broken model.
    let (broken, _) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 2)) { try await twoReloadsThrowing(checksGeneration: false) }
    }
    #expect(broken.failure != nil)
  }

  @Test func theTokenReplaysTheFailure() async throws {
    let (found, _) = await collectingIssues {
      await explore(.random(schedules: 200, seed: 1)) {
        try await twoReloadsThrowing(checksGeneration: false)
      }
    }
    let failure = try #require(found.failure)
    let (again, _) = await collectingIssues {
      await explore(.replay(failure.token)) { try await twoReloadsThrowing(checksGeneration: false) }
    }
    #expect(again.schedulesRun == 1)
    #expect(again.failure?.failures == failure.failures)
    #expect(again.failure?.timeline == failure.timeline)
  }

  @Test func cancellationIsExploredToo() async {
    let (result, issues) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 1), cancellation: .atLockstepWaits) {
        let calls = ControlledCalls<Int, Int>("loader", cancellation: .ignored)
        let publisher = Publisher()
        let load = Task { await publisher.load(calls) }
        try await calls.waitUntilPending(1)
        calls.succeed(1, with: 42)
        await load.value
        let published = await publisher.published
        #expect(!load.isCancelled || published == nil)
      }
    }
    expectOneIssue(
      issues, containing: "found a failing schedule",
      "Expectation failed: (!load.isCancelled → false) || (published == nil → false)",
      "is cancelled here (injected by explore)")
    // Only a schedule that cancels the load fails: those without a cancellation ran first.
    #expect(result.failure?.schedule ?? 0 > 1)
  }

  // The article's example of the trait; ExplorationTraitTests checks that it explores and fails.
  @Test(.exploring(.pct(schedules: 200, depth: 2)), .timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func theNewestReloadAlwaysWinsUnderTheTrait() async {
    await twoReloads(checksGeneration: true)
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct FindingRacesAtScaleExamples {
  @Test func aFixedRaceStaysPinned() async throws {
    let (found, _) = await collectingIssues {
      await explore(.pct(schedules: 200, depth: 2, seed: 1)) {
        try await twoReloadsThrowing(checksGeneration: false)
      }
    }
    let token = try #require(found.failure?.token.description)
    // The article's example, with the token the broken model printed, on the fixed model.
    let result = await explore(.pct(schedules: 200, depth: 2), pinned: [token]) {
      await twoReloads(checksGeneration: true)
    }
    #expect(result.failure == nil && result.pinnedPassed == 1 && result.schedulesRun == 200)
    // Pinned on the broken model, the token is the failure, before anything new is explored.
    let (again, _) = await collectingIssues {
      await explore(.pct(schedules: 200, depth: 2), pinned: [token]) {
        try await twoReloadsThrowing(checksGeneration: false)
      }
    }
    #expect(again.failure?.pinnedToken == token && again.schedulesRun == 0)
  }

  @Test func aTimeBudget() async {
    let result = await explore(.pct(schedules: 1_000_000, depth: 2).forAtMost(.milliseconds(200))) {
      await twoReloads(checksGeneration: true)
    }
    #expect(result.failure == nil && result.ranOutOfTime)
    #expect(result.description.contains("\(result.schedulesRun) schedule(s)"))
    #expect(result.description.contains("stopped when its time budget of 200 ms ran out"), "\(result)")
  }

  @Test func theNewestReloadWinsOnTheRealExecutors() async {
    let result = await stress(times: 200) { await twoReloads(checksGeneration: true) }
    #expect(result.runs == 200 && result.failedRuns == 0)
  }
}

final class FindingRacesXCTestExamples: XCTestCase {
  func testNewestReloadWins() async {
    let result = await explore(.exhaustive(maxPreemptions: 2)) {
      await twoReloads(checksGeneration: true)
    }
    XCTAssertNil(result.failure)
  }
}

// MARK: - Races at locks (FindingRaces.md)

/// The article's seats: the free count checked in one lock section and taken in the next, or
/// both in one (`oneSection`).
private final class Seats: @unchecked Sendable {
  private let lock = NSLock()
  private var free = 1
  private let oneSection: Bool

  init(oneSection: Bool) { self.oneSection = oneSection }

  func reserve() -> Bool {
    if oneSection {
      return lock.withLock {
        guard free > 0 else { return false }
        free -= 1
        return true
      }
    }
    let available = lock.withLock { free > 0 }
    guard available else { return false }
    lock.withLock { free -= 1 }
    return true
  }
}

private func twoReservations(oneSection: Bool) async {
  let seats = Seats(oneSection: oneSection)
  let first = Task { seats.reserve() }
  let second = Task { seats.reserve() }
  let reserved = await [first.value, second.value].count { $0 }
  #expect(reserved == 1)
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RacesAtLocksExamples {
  @Test func theLastSeatIsReservedOnce() async {
    #if os(Linux)
      let (broken, _) = await collectingIssues {
        await explore(.pct(schedules: 500, depth: 2)) { await twoReservations(oneSection: false) }
      }
      #expect(broken.failure != nil, "\(broken)")
    #endif
    let fixed = await explore(.pct(schedules: 500, depth: 2)) { await twoReservations(oneSection: true) }
    #expect(fixed.passed, "\(fixed)")
  }
}
