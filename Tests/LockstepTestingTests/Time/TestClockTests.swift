import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(1)))
struct TestClockTests {
  @Test func startsAtZeroAndMovesOnlyWhenAdvanced() async {
    let clock = TestClock()
    #expect(clock.now == .zero)
    #expect(clock.minimumResolution == .zero)
    await clock.advance(by: .milliseconds(80))
    #expect(clock.now.offset == .milliseconds(80))
    await clock.advance(to: .zero.advanced(by: .seconds(2)))
    #expect(clock.now.offset == .seconds(2))
    #expect(clock.now.duration(to: clock.now.advanced(by: .seconds(1))) == .seconds(1))
  }

  @Test func aSleeperWakesAtItsDeadlineAndNotBefore() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .milliseconds(80)) }
    try await clock.waitForSleepers(count: 1)
    #expect(clock.pendingDeadlines == [.zero.advanced(by: .milliseconds(80))])
    #expect(await clock.advance(by: .milliseconds(79)) == 0)
    #expect(clock.sleeperCount == 1)
    #expect(await clock.advance(by: .milliseconds(1)) == 1)
    #expect(clock.sleeperCount == 0)
    try await sleeper.value
    #expect(clock.now.offset == .milliseconds(80))
  }

  @Test func advanceReturnsOnlyAfterEveryWokenSleeperReturnedFromSleep() async throws {
    let clock = TestClock()
    let returned = EventCounter("returned from sleep")
    let tasks = TestTaskFactory()
    for index in 1...20 {
      tasks.task {
        try? await clock.sleep(for: .milliseconds(index % 4 + 1))
        returned.record()
      }
    }
    try await clock.waitForSleepers(count: 20)
    #expect(await clock.advance(by: .milliseconds(2)) == 10)
    // Each woken sleeper's `sleep` has returned; the `record` after it may still be running.
    try await returned.waitForCount(10)
    #expect(clock.sleeperCount == 10)
    #expect(await clock.run() == 10)
    try await tasks.waitUntilIdle()
    returned.expectCount(20)
    #expect(clock.now.offset == .milliseconds(4))
  }

  @Test func sleepersCanBeObservedStepByStep() async throws {
    let clock = TestClock()
    let ticks = EventRecorder<TestClock.Instant>("ticks")
    let ticker = Task {
      for _ in 0..<5 {
        try await clock.sleep(for: .seconds(1))
        ticks.record(clock.now)
      }
    }
    for second in 1...5 {
      try await clock.waitForSleepers(count: 1)
      await clock.advance(by: .seconds(1))
      try await ticks.waitForCount(second)
    }
    try await ticker.value
    #expect(ticks.values.map(\.offset) == (1...5).map { .seconds($0) })
  }

  @Test func aJumpWakesARepeatingSleeperOnce() async throws {
    let clock = TestClock()
    let ticks = EventCounter("ticks")
    let ticker = Task {
      while true {
        try await clock.sleep(for: .seconds(1))
        ticks.record()
      }
    }
    try await clock.waitForSleepers(count: 1)
    await clock.advance(by: .seconds(5))
    try await clock.waitForSleepers(count: 1)
    #expect(clock.pendingDeadlines == [.zero.advanced(by: .seconds(6))])
    ticks.expectCount(1)
    ticker.cancel()
    await #expect(throws: CancellationError.self) { try await ticker.value }
  }

  @Test func aPastDeadlineReturnsWithoutSuspending() async throws {
    let clock = TestClock()
    await clock.advance(by: .seconds(1))
    try await clock.sleep(until: .zero.advanced(by: .milliseconds(500)))
    try await clock.sleep(until: clock.now)
    try await clock.sleep(for: .zero)
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancellingASleeperThrowsAndRemovesIt() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    try await clock.waitForSleepers(count: 1)
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
    #expect(await clock.advance(by: .seconds(1)) == 0)
  }

  @Test func cancellationBeforeSleepingThrowsAndIsNeverCounted() async throws {
    let clock = TestClock()
    let start = Gate("start")
    let sleeper = Task {
      try? await start.wait()
      try await clock.sleep(for: .seconds(1))
    }
    sleeper.cancel()
    start.open()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancellationRacingRegistrationNeverLeavesASleeper() async throws {
    let clock = TestClock()
    for _ in 0..<500 {
      let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
      sleeper.cancel()  // before, during or after registration
      _ = await sleeper.result
      #expect(clock.sleeperCount == 0)
    }
  }

  @Test func cancellationRacingAdvanceResumesExactlyOnce() async throws {
    let clock = TestClock()
    for round in 1...200 {
      let sleeper = Task { try await clock.sleep(for: .milliseconds(1)) }
      try await clock.waitForSleepers(count: 1)
      async let advanced = clock.advance(by: .milliseconds(1))
      sleeper.cancel()
      let result = await sleeper.result
      let woke = await advanced
      // Either the advance woke it (it returns normally) or the cancellation removed it first.
      switch result {
      case .success: #expect(woke == 1, "round \(round)")
      case .failure(let error): #expect(error is CancellationError && woke == 0, "round \(round)")
      }
      #expect(clock.sleeperCount == 0)
    }
  }

  @Test func movingBackwardsIsAReportedMisuse() async {
    let clock = TestClock()
    await clock.advance(by: .seconds(1))
    let (woken, issues) = await collectingIssues {
      let byNegative = await clock.advance(by: .milliseconds(-1))
      let toEarlier = await clock.advance(to: .zero)
      return byNegative + toEarlier
    }
    #expect(woken == 0)
    #expect(issues.count == 2)
    #expect(issues.allSatisfy { $0.site.fileID.description == "LockstepTestingTests/TestClockTests.swift" })
    #expect(issues.first?.message.contains("advance(by: -1 ms)") == true)
    #expect(issues.last?.message.contains("the clock is at 1 s") == true)
    #expect(clock.now.offset == .seconds(1))
  }

  @Test func waitingForSleepersTimesOutNamingTheClock() async {
    let clock = TestClock()
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await clock.waitForSleepers(count: 2, timeout: .milliseconds(20))
    }
    #expect(error?.awaited == "2 sleeper(s) on the TestClock")
    #expect(error?.pending.first?.hasPrefix("0 of 2 sleeping") == true)
  }

  @Test func runDrainsEverySleeperInDeadlineOrder() async throws {
    let clock = TestClock()
    let tasks = TestTaskFactory()
    for index in [5, 1, 4, 2, 3] {
      tasks.task { try? await clock.sleep(for: .seconds(index)) }
    }
    try await clock.waitForSleepers(count: 5)
    #expect(await clock.run() == 5)
    try await tasks.waitUntilIdle()
    #expect(clock.now.offset == .seconds(5))
    #expect(await clock.run() == 0)
  }

  @Test func usableAsAnyClock() async throws {
    let clock = TestClock()
    let any: any Clock<Duration> = clock
    let sleeper = Task { try await any.sleep(for: .milliseconds(10)) }
    try await clock.waitForSleepers()
    await clock.advance(by: .milliseconds(10))
    try await sleeper.value
    #expect(clock.description == "TestClock(now: 10 ms, 0 sleeper(s))")
  }
}

@Suite(.timeLimit(.minutes(1)))
struct ImmediateClockTests {
  @Test func everySleepReturnsAtOnceAndMovesTime() async throws {
    let clock = ImmediateClock()
    let any: any Clock<Duration> = clock
    try await any.sleep(for: .seconds(5))
    try await clock.sleep(for: .milliseconds(250))
    #expect(clock.now.offset == .milliseconds(5_250))
    try await clock.sleep(until: .zero)  // in the past: time does not go back
    #expect(clock.now.offset == .milliseconds(5_250))
    #expect(clock.minimumResolution == .zero)
    #expect(clock.description == "ImmediateClock(now: 5.25 s)")
  }

  @Test func aCancelledSleeperThrows() async {
    let clock = ImmediateClock()
    let sleeper = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.now == .zero)
  }
}

final class TestClockXCTests: XCTestCase {
  func testAdvanceWakesTheSleeper() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    try await clock.waitForSleepers(count: 1)
    let early = await clock.advance(by: .milliseconds(999))
    XCTAssertEqual(early, 0)
    let due = await clock.advance(by: .milliseconds(1))
    XCTAssertEqual(due, 1)
    try await sleeper.value
  }

  func testMovingBackwardsIsReported() async {
    let clock = TestClock()
    let (_, issues) = await collectingIssues { await clock.advance(by: .seconds(-1)) }
    XCTAssertEqual(issues.count, 1)
    XCTAssertEqual(clock.now, .zero)
  }

  func testImmediateClockSkipsTheWait() async throws {
    let clock = ImmediateClock()
    try await clock.sleep(for: .seconds(60))
    XCTAssertEqual(clock.now.offset, .seconds(60))
  }
}
