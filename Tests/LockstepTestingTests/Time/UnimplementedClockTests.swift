import LockstepTestSupport
import LockstepTesting
import Testing

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct UnimplementedClockTests {
  @Test func readingNowIsReportedAtTheLineThatCreatedTheClock() async {
    let line: UInt = #line + 1
    let clock = UnimplementedClock("retry clock")
    let (now, issues) = await collectingIssues { clock.now }
    #expect(now == .zero)
    #expect(
      issues.map(\.message) == [
        "UnimplementedClock \"retry clock\": the code under test read now (it is 0 s); this "
          + "test expects it not to use the clock"
      ])
    #expect(issues.first?.site.line == line)
  }

  @Test func aSleepIsReportedAndReturnsAtOnce() async throws {
    let clock = UnimplementedClock("retry clock")
    let (_, issues) = try await collectingIssues {
      try await clock.sleep(until: .zero.advanced(by: .seconds(2)))
    }
    #expect(
      issues.map(\.message) == [
        "UnimplementedClock \"retry clock\": the code under test slept until 2 s; this test "
          + "expects it not to use the clock"
      ])
  }

  @Test func sleepForThroughTheClockProtocolReportsTheReadAndTheSleep() async throws {
    let clock: any Clock<Duration> = UnimplementedClock("timeout")
    let (_, issues) = try await collectingIssues { try await clock.sleep(for: .seconds(1)) }
    #expect(issues.count == 2)
    #expect(issues.first?.message.contains("read now (it is 0 s)") == true)
    #expect(issues.last?.message.contains("slept until 1 s") == true)
  }

  @Test func aLoopUntilADeadlineStillEnds() async throws {
    let clock = UnimplementedClock("poll")
    let (_, issues) = try await collectingIssues {
      var polls = 0
      while clock.now < .zero.advanced(by: .seconds(3)) {
        polls += 1
        try await clock.sleep(for: .seconds(1))
      }
      return polls
    }
    #expect(issues.count == 10)  // 4 checks of now, 3 sleeps each reading now first
  }

  @Test func aSleepIsReportedAtTheLineThatCreatedTheClock() async {
    let line: UInt = #line + 1
    let clock = UnimplementedClock("retry clock")
    let (_, issues) = await collectingIssues {
      try? await clock.sleep(until: .zero.advanced(by: .seconds(1)))
    }
    let issue = expectOneIssue(issues, containing: "\"retry clock\": the code under test slept until")
    #expect(issue?.site.fileID.description == "LockstepTestingTests/UnimplementedClockTests.swift")
    #expect(issue?.site.line == line)
  }

  @Test func aCancelledSleeperThrows() async {
    let clock = UnimplementedClock()
    let (_, issues) = await collectingIssues {
      withUnsafeCurrentTask { $0?.cancel() }
      await #expect(throws: CancellationError.self) { try await clock.sleep(for: .seconds(1)) }
    }
    #expect(issues.count == 2)
  }
}
