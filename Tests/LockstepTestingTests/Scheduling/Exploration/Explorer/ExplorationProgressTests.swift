import LockstepTestSupport
import Testing

@testable import LockstepTesting

// Progress on long work: the pure decision (when a line is due, what it says) on a clock the test
// moves, and `explore` and `stress` wired to it, writing to an output the test reads.

/// The lines written by the work `body` does with progress in `mode`, each write one element.
private func writes<T>(
  _ mode: ExplorationProgress.Mode, isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> T
) async rethrows -> (T, [String]) {
  let written = Locked<[String]>([])
  let output = ProgressReporter.Output(mode: mode) { text in written.withLock { $0.append(text) } }
  let value = try await ProgressReporter.$override.withValue(output) { try await body() }
  return (value, written.value)
}

/// How many lines a meter in `mode` writes over `total` of work that ticks every `tick`.
private func linesDue(_ mode: ExplorationProgress.Mode, over total: Duration, tick: Duration) -> Int {
  var meter = ExplorationProgress(mode: mode, subject: "explore at Tests/File.swift:1")
  var elapsed = Duration.zero
  var lines = 0
  while elapsed <= total {
    if meter.isDue(at: elapsed) { lines += 1 }
    elapsed += tick
  }
  return lines
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationProgressTests {
  // MARK: The decision

  @Test func sixSecondsOfWorkWriteTwoLinesToACILogAndATenthOfASecondNone() {
    #expect(linesDue(.lines, over: .seconds(6), tick: .milliseconds(1)) >= 2)
    #expect(linesDue(.lines, over: .milliseconds(100), tick: .microseconds(10)) == 0)
    #expect(linesDue(.lines, over: ExplorationProgress.quiet - .nanoseconds(1), tick: .milliseconds(1)) == 0)
    #expect(linesDue(.off, over: .seconds(60), tick: .milliseconds(1)) == 0)
  }

  @Test func aCILogGetsALineEveryFewSecondsAtMostAndFewerAfterAMinute() {
    var meter = ExplorationProgress(mode: .lines, subject: "explore")
    var times: [Duration] = []
    var elapsed = Duration.zero
    while elapsed <= .seconds(300) {
      if meter.isDue(at: elapsed) { times.append(elapsed) }
      elapsed += .milliseconds(7)
    }
    let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
    #expect(gaps.allSatisfy { $0 >= .seconds(3) })
    #expect(zip(times.dropFirst(), gaps).allSatisfy { $0 < .seconds(60) || $1 >= .seconds(10) })
    #expect(times.count <= 20 + 24, "five minutes: \(times.count) lines")
    #expect(meter.linesWritten == times.count)
  }

  @Test func aTerminalRewritesOneLineInPlaceAndClearsItAtTheEnd() {
    var meter = ExplorationProgress(mode: .terminal, subject: "explore at Tests/File.swift:1")
    meter.columns = 60
    #expect(meter.ending(.init(done: 1), at: .seconds(1)) == nil, "no line, nothing to clear")
    let due = [.seconds(3), .seconds(3) + .milliseconds(100), .seconds(4)].map {
      meter.isDue(at: $0)
    }
    #expect(due == [true, false, true])
    let text = meter.text(.init(done: 12_345, of: 20_000), at: .seconds(4))
    #expect(text.hasPrefix("\r\u{1B}[K") && !text.contains("\n"))
    #expect(text.count == 4 + 60, "cut to the terminal's width: \(text)")
    #expect(meter.ending(.init(done: 20_000), at: .seconds(5)) == "\r\u{1B}[K")
  }

  @Test func aLineSaysWhatRanOfWhatWasAskedTheFailuresTheRateAndTheTimeLeft() {
    let meter = ExplorationProgress(mode: .lines, subject: "explore at Tests/File.swift:12")
    let text = meter.text(
      .init(done: 12_000, of: 20_000, timeBudget: .seconds(300)), at: .seconds(8))
    #expect(
      text
        == "lockstep: explore at Tests/File.swift:12: 12,000 of 20,000 schedules, no failure, "
        + "1,500 schedules/s, 4 min 52 s of 5 min left\n")
    let stress = ExplorationProgress.words(
      .init(done: 40, of: 100, unit: "run", failures: 3), at: .seconds(5))
    #expect(stress == "40 of 100 runs, 3 failed, 8 runs/s")
    #expect(ExplorationProgress.time(.seconds(3_720)) == "1 h 2 min")
  }

  @Test func anExhaustiveSearchSaysHowFarItIsAndHowSureThatIs() {
    let search = SearchProgress(untriedByDepth: [3, 1], passesLeft: 0, estimatedSchedules: 1_000)
    let words = ExplorationProgress.words(
      .init(done: 250, limit: 100_000, search: search), at: .seconds(10))
    #expect(
      words
        == "250 schedules (limit 100,000), no failure, 25 schedules/s, about 25 % of an estimated "
        + "1000 (a rough estimate; at least 4 left)")
    let done = SearchProgress(untriedByDepth: [0], passesLeft: 0, estimatedSchedules: 250)
    #expect(ExplorationProgress.searchWords(done, done: 250) == "the search tree is done")
  }

  @Test func theVariableTurnsProgressOffOrForcesLines() {
    let cases: [(String?, Bool, ExplorationProgress.Mode)] = [
      (nil, false, .lines), ("", true, .terminal), (" ", false, .lines), ("0", true, .off),
      ("1", true, .lines),
    ]
    for (value, isTerminal, expected) in cases {
      let (mode, problem) = ProgressReporter.mode(value, isTerminal: isTerminal)
      #expect(mode == expected && problem == nil, "\(value ?? "unset")")
    }
    let (mode, problem) = ProgressReporter.mode("yes", isTerminal: false)
    #expect(mode == .lines)
    #expect(problem?.contains("LOCKSTEP_PROGRESS=yes is neither 0") == true)
  }

  // MARK: Explore and stress

  @Test func aSixSecondExplorationWritesLinesThatNameItAndAShortOneNone() async throws {
    // Each schedule takes 10 ms of a clock the test moves.
    let now = Locked(Duration.zero)
    let (long, lines) = await writes(.lines) {
      await withClock(now) {
        await explore(.random(schedules: 100_000, seed: 1).forAtMost(.seconds(6))) {
          try await twoWriters(checked: false)
          now.withLock { $0 += .milliseconds(10) }
        }
      }
    }
    let line = #line - 6
    #expect(long.ranOutOfTime && long.failure == nil)
    let progress = lines.filter { !$0.contains("ended after") }
    #expect(progress.count >= 2, "\(lines)")
    let subject = "lockstep: explore at LockstepTestingTests/ExplorationProgressTests.swift:\(line): "
    #expect(lines.allSatisfy { $0.hasPrefix(subject) && $0.hasSuffix("\n") }, "\(lines)")
    #expect(progress.first?.contains("of 100,000 schedules, no failure") == true, "\(lines)")
    #expect(progress.first?.contains("s left") == true, "\(lines)")
    let ended = try #require(lines.last)
    #expect(ended.contains("ended after 6 s: \(long.schedulesRun.grouped) of 100,000"), "\(ended)")
    #expect(!long.description.contains("lockstep:"), "progress never enters the result")

    now.withLock { $0 = .zero }
    let (short, none) = await writes(.lines) {
      await withClock(now) {
        await explore(.random(schedules: 100_000, seed: 1).forAtMost(.milliseconds(100))) {
          try await twoWriters(checked: false)
          now.withLock { $0 += .milliseconds(10) }
        }
      }
    }
    #expect(short.schedulesRun == 10 && none.isEmpty, "\(none)")

    now.withLock { $0 = .zero }
    let (_, off) = await writes(.off) {
      await withClock(now) {
        await explore(.random(schedules: 1_000, seed: 1).forAtMost(.seconds(6))) {
          try await twoWriters(checked: false)
          now.withLock { $0 += .milliseconds(10) }
        }
      }
    }
    #expect(off.isEmpty)
  }

  @Test func aLongFailingExplorationSaysItShrinksAndEndsWithTheFailure() async throws {
    // Every schedule takes a second; the failing one is shrunk, which the lines say.
    let now = Locked(Duration.zero)
    let ((result, issues), lines) = await writes(.lines) {
      await withClock(now) {
        await collectingIssues {
          await explore(.exhaustive(maxPreemptions: 2)) {
            try await twoWriters(checked: true)
            now.withLock { $0 += .seconds(1) }
          }
        }
      }
    }
    let failure = try #require(result.failure)
    #expect(issues.count == 1)
    #expect(!issues.contains { $0.message.contains("lockstep: explore at") })
    #expect(failure.schedule >= 2)
    #expect(lines.contains { $0.contains("shrinking the failing schedule") } || failure.schedule < 4)
    let ended = try #require(lines.last)
    #expect(ended.contains("ended after") && ended.contains("1 failed"), "\(lines)")
  }

  @Test func aLongStressCallWritesItsRunsAndFailures() async throws {
    let now = Locked(Duration.zero)
    let counter = Locked(0)
    let ((result, _), lines) = await writes(.lines) {
      await withClock(now) {
        await collectingIssues {
          await stress(times: 40) {
            now.withLock { $0 += .milliseconds(250) }
            let run = counter.withLock { count in
              count += 1
              return count
            }
            if run.isMultiple(of: 10) { throw AlwaysFails() }
          }
        }
      }
    }
    #expect(result.failedRuns == 4)
    let progress = lines.filter { !$0.contains("ended after") }
    #expect(progress.count >= 2, "\(lines)")
    #expect(lines.allSatisfy { $0.hasPrefix("lockstep: stress at LockstepTestingTests/") })
    #expect(progress.last?.contains(" of 40 runs, ") == true, "\(lines)")
    let ended = try #require(lines.last)
    #expect(ended.contains("ended after 10 s: 40 of 40 runs, 4 failed"), "\(ended)")
  }
}
