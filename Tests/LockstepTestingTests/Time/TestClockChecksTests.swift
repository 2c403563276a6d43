import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TestClockChecksTests {
  @Test func sleepersNameTheirTaskAndDeadline() async throws {
    let clock = TestClock()
    let tasks = TestTaskFactory()
    tasks.task(name: "retry") { try? await clock.sleep(for: .seconds(2)) }
    tasks.task(name: "poll") { try? await clock.sleep(for: .seconds(1)) }
    try await clock.waitForSleepers(count: 2)
    #expect(
      clock.sleepers == [
        TestClock.Sleeper(deadline: .zero.advanced(by: .seconds(1)), taskName: "poll"),
        TestClock.Sleeper(deadline: .zero.advanced(by: .seconds(2)), taskName: "retry"),
      ])
    await clock.run()
    try await tasks.waitUntilIdle()
    #expect(clock.sleepers.isEmpty)
  }

  @Test func expectNoSleepersPassesOnceEverySleeperWokeOrWasCancelled() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
    try await clock.waitForSleepers(count: 1)
    sleeper.cancel()
    _ = await sleeper.result
    let (clean, issues) = await collectingIssues { clock.expectNoSleepers() }
    #expect(clean && issues.isEmpty)
  }

  @Test func expectNoSleepersNamesEachRemainingSleeper() async throws {
    let clock = TestClock()
    let tasks = TestTaskFactory()
    tasks.task(name: "retry") { try? await clock.sleep(for: .seconds(3)) }
    let unnamed = Task { try await clock.sleep(for: .milliseconds(1500)) }
    try await clock.waitForSleepers(count: 2)
    await clock.advance(by: .seconds(1))
    let line: UInt = #line + 1
    let (clean, issues) = await collectingIssues { clock.expectNoSleepers() }
    #expect(!clean)
    #expect(
      issues.map(\.message) == [
        """
        TestClock: 2 sleepers left at 1 s:
          - until 1.5 s (in 500 ms), in an unnamed task
          - until 3 s (in 2 s), in task "retry"
        """
      ])
    #expect(issues.first?.site.line == line)
    unnamed.cancel()
    tasks.cancelAll()
    try await tasks.waitUntilIdle()
  }

  @Test func advanceWithNoDurationRunsOnlyWhatIsDueNow() async throws {
    let clock = TestClock()
    let queue = TestQueue("main", clock: clock)
    let ran = EventRecorder<String>("work")
    queue.schedule { ran.record("now") }
    queue.schedule(after: .milliseconds(1)) { ran.record("later") }
    let sleeper = Task { try await clock.sleep(for: .milliseconds(1)) }
    try await clock.waitForSleepers(count: 1)
    #expect(await clock.advance() == 1)
    #expect(ran.values == ["now"])
    #expect(clock.now == .zero)
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(1))
    #expect(ran.values == ["now", "later"])
    try await sleeper.value
  }

  @Test func advanceWithNothingDueDoesNothing() async {
    let clock = TestClock()
    #expect(await clock.advance() == 0)
    #expect(clock.now == .zero)
  }
}
