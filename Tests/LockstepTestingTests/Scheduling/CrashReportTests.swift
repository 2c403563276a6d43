import LockstepTestSupport
import Testing

@testable import LockstepTesting

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// A trap in the code under test ends the process. Before it does, Lockstep writes to standard
// error which exploration and which schedule ran, the step that crashed, and a token that replays
// the choices made so far — so the schedule can be replayed up to the crash, and the crash brought
// back; or, while a run unwinds after a deadlock, the deadlock's report.

/// The one item of a stock, taken by two tasks that each check that it is there, suspend, then
/// take it: when both check before either takes, the second take finds the set empty.
private final class Stock: @unchecked Sendable {  // used by one task at a time, on the run's thread
  var items: Set<Int> = [7]
}

private struct EmptyStock: Error, CustomStringConvertible {
  let taker: Int
  var description: String { "taker \(taker) takes from an empty stock" }
}

/// Two takers race for the last item. `trapping`: the second take traps ("Can't removeFirst from
/// an empty Set"); otherwise it throws at the same point instead.
@Sendable private func twoTakers(trapping: Bool) async throws {
  let stock = Stock()
  let takers = (1...2).map { number in
    Task(name: "taker \(number)") { () throws in
      guard !stock.items.isEmpty else { return }
      await Task.yield()  // allowed: the choice point between the check and the take
      if trapping || !stock.items.isEmpty {
        _ = stock.items.removeFirst()
      } else {
        throw EmptyStock(taker: number)
      }
    }
  }
  for taker in takers { try await taker.value }
}

/// Starts two tasks, then waits for the first, which traps as it starts: where both are ready, a
/// choice point, so the crash's token records the choice that picked the trapping task.
@Sendable private func firstOfTwoTraps() async {
  let first = Task(name: "trapping") {
    var empty: Set<Int> = []
    _ = empty.removeFirst()
  }
  let second = Task(name: "other") {}
  await first.value
  await second.value
}

/// The token in a crash report: the text between `.replay("` and `")`.
private func replayToken(in text: String) -> String? {
  guard let start = text.range(of: ".replay(\"") else { return nil }
  let rest = text[start.upperBound...]
  guard let end = rest.range(of: "\")") else { return nil }
  return String(rest[..<end.lowerBound])
}

/// The strategy in a crash report that replays up to the crash: its token and step, from
/// `.replayUpToCrash("…", atStep: N)`.
private func upToCrash(in text: String) -> (token: String, step: Int)? {
  guard let start = text.range(of: ".replayUpToCrash(\"") else { return nil }
  let rest = text[start.upperBound...]
  guard let end = rest.range(of: "\", atStep: "),
    let close = rest[end.upperBound...].firstIndex(of: ")"),
    let step = Int(rest[end.upperBound..<close])
  else { return nil }
  return (String(rest[..<end.lowerBound]), step)
}

/// Suspends for good (a continuation nobody resumes; cancellation does not end it).
private func waitForGood() async {
  await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
}

// Serialized: an exit test holds a thread of the cooperative pool while its child process runs,
// and two at once on a two-core machine would hold all of them.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .serialized)
struct CrashReportTests {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
    @Test func aTrapLeavesTheExplorationTheScheduleAndATokenOnStandardError() async throws {
      let crashed = try #require(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          await explore(.random(schedules: 50, seed: 3)) { try await twoTakers(trapping: true) }
        })
      let report = String(decoding: crashed.standardErrorContent, as: UTF8.self)
      #expect(report.contains("Can't removeFirst from an empty Set"), "the trap itself: \(report)")
      #expect(report.contains("explore random(schedules: 50, seed: 3)"), "\(report)")
      #expect(report.contains("CrashReportTests.swift:"), "the explore call: \(report)")
      #expect(report.contains("schedule "), "\(report)")
      let token = try #require(replayToken(in: report), "\(report)")

      // The token replays the choices up to the trap: with the trap turned into a check, the
      // replay reaches the same point.
      let (replay, issues) = await collectingIssues {
        await explore(.replay(token)) { try await twoTakers(trapping: false) }
      }
      #expect(replay.divergence == nil)
      #expect(replay.failure?.failures.first?.contains("takes from an empty stock") == true, "\(replay)")
      #expect(issues.count == 1)
    }

    /// Explorations proceed side by side, each with a crash trail of its own: the crash names the
    /// exploration whose schedule crashed, not the one running beside it.
    @Test func aTrapBesideAnotherExplorationNamesTheExplorationThatCrashed() async throws {
      let crashed = try #require(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          let besideSchedules = Locked(0)
          async let beside = explore(.random(schedules: 1_000_000, seed: 11)) {
            besideSchedules.withLock { $0 += 1 }
            await withTaskGroup(of: Void.self) { group in
              group.addTask { await Task.yield() }  // allowed: choice points, and no failure
              group.addTask {}
            }
          }
          try? await waitUntil("the other exploration runs") { besideSchedules.value > 0 }
          await explore(.random(schedules: 50, seed: 3)) {
            // The other exploration begins schedules while this one runs, up to its crash.
            let seen = besideSchedules.value
            let bound = RealTime.now + .seconds(20)
            while besideSchedules.value < seen + 2 && RealTime.now < bound {}
            try await twoTakers(trapping: true)
          }
          _ = await beside
        })
      let report = String(decoding: crashed.standardErrorContent, as: UTF8.self)
      #expect(report.contains("explore random(schedules: 50, seed: 3)"), "\(report)")
      #expect(!report.contains("explore random(schedules: 1000000, seed: 11)"), "\(report)")
      let (token, step) = try #require(upToCrash(in: report), "\(report)")
      let (replay, _) = await collectingIssues {
        await explore(.replayUpToCrash(token, atStep: step)) { try await twoTakers(trapping: true) }
      }
      #expect(replay.stoppedBeforeCrashingStep == step, "\(replay)")
      #expect(replay.divergence == nil, "\(replay)")
    }

    @Test func theReportedStrategyReplaysTheScheduleUpToTheCrashAndStopsBeforeIt() async throws {
      let crashed = try #require(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          await explore(.random(schedules: 50, seed: 3)) { try await twoTakers(trapping: true) }
        })
      let report = String(decoding: crashed.standardErrorContent, as: UTF8.self)
      let (token, step) = try #require(upToCrash(in: report), "\(report)")
      #expect(report.contains("It crashed in step \(step) ("), "\(report)")

      // The very code that trapped, replayed in this process: it stops before the trap.
      let (replay, issues) = await collectingIssues {
        await explore(.replayUpToCrash(token, atStep: step)) { try await twoTakers(trapping: true) }
      }
      #expect(replay.stoppedBeforeCrashingStep == step, "\(replay)")
      #expect(replay.divergence == nil, "\(replay)")
      let failure = try #require(replay.failure, "\(replay)")
      #expect(failure.timeline.entries.last?.step == step - 1, "\(failure.timeline)")
      #expect(issues.count == 1, "\(issues.map(\.message))")
      let issue = issues.first?.message ?? ""
      #expect(
        issue.contains(
          "stopped before step \(step), the step that crashed the process in the recorded run"),
        "\(issue)")
      #expect(issue.contains(failure.timeline.description), "the timeline: \(issue)")
      #expect(issue.contains(".replayUpToCrash(\"\(token)\", atStep: \(step))"), "\(issue)")
      for mislabel in ["livelock", "did not follow", "maxSteps"] {
        #expect(!"\(replay)".contains(mislabel), "\(replay)")
      }
    }

    @Test func aReplayUpToACrashInAChoicePointDoesNotMakeThatChoice() async throws {
      let crashed = try #require(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          await explore(.exhaustive(maxPreemptions: 0)) { await firstOfTwoTraps() }
        })
      let report = String(decoding: crashed.standardErrorContent, as: UTF8.self)
      let (token, step) = try #require(upToCrash(in: report), "\(report)")
      #expect(report.contains("(1 choice point(s) so far)"), "the choice of the trap's step: \(report)")

      // The replay stops before the step whose choice the token recorded last: it follows the
      // token all the same.
      let (replay, _) = await collectingIssues {
        await explore(.replayUpToCrash(token, atStep: step)) { await firstOfTwoTraps() }
      }
      #expect(replay.stoppedBeforeCrashingStep == step, "\(replay)")
      #expect(replay.divergence == nil, "\(replay)")
    }

    @Test func aTrapWhileTheBodyUnwindsLeavesTheReportOnStandardError() async throws {
      let crashed = try #require(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = try? await withDeterministicScheduling {
            await withTaskCancellationHandler {
              await waitForGood()
            } onCancel: {
              fatalError("shutdown took longer than allowed")
            }
          }
        })
      let text = String(decoding: crashed.standardErrorContent, as: UTF8.self)
      #expect(text.contains("shutdown took longer than allowed"), "the trap itself: \(text)")
      #expect(text.contains("while a deterministic run unwinds its cancelled body"), "\(text)")
      #expect(text.contains("Deadlock in the deterministic run started at"), "\(text)")
    }

    /// A signal the code under test sends its own process while the body unwinds (a shutdown that
    /// raises `SIGALRM`, whose source is gone): the process dies of it, after the report.
    @Test func aSignalThatEndsTheProcessWhileTheBodyUnwindsLeavesTheReportOnStandardError() async throws {
      let ended = try #require(
        await #expect(processExitsWith: .signal(SIGALRM), observing: [\.standardErrorContent]) {
          _ = try? await withDeterministicScheduling {
            await withTaskCancellationHandler {
              await waitForGood()
            } onCancel: {
              _ = kill(getpid(), SIGALRM)
            }
          }
        })
      let text = String(decoding: ended.standardErrorContent, as: UTF8.self)
      #expect(text.contains("while a deterministic run unwinds its cancelled body"), "\(text)")
      #expect(text.contains("Deadlock in the deterministic run started at"), "\(text)")
    }
  #endif
}
