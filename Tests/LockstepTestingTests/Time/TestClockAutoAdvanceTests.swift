import LockstepTestSupport
import LockstepTesting
import Testing

/// Retries with 1 s, 2 s, 4 s between attempts on `clock`, recording the time of each attempt.
private func retry(on clock: TestClock, attempts: Int) async throws -> [Duration] {
  var times: [Duration] = []
  var delay = Duration.seconds(1)
  for attempt in 1...attempts {
    times.append(clock.now.offset)
    if attempt < attempts {
      try await clock.sleep(for: delay)
      delay *= 2
    }
  }
  return times
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TestClockAutoAdvanceTests {
  @Test func aDeterministicRunAdvancesAnAutoAdvancingClock() async throws {
    let clock = TestClock(advancesAutomatically: true)
    let times = try await withDeterministicScheduling { try await retry(on: clock, attempts: 4) }
    #expect(times == [.zero, .seconds(1), .seconds(3), .seconds(7)])
    #expect(clock.now.offset == .seconds(7))
  }

  @Test func clockSleepsAndTaskSleepsWakeInDeadlineOrder() async throws {
    let clock = TestClock(advancesAutomatically: true)
    let log = EventRecorder<String>("wake-ups")
    try await withDeterministicScheduling {
      await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          try await clock.sleep(for: .seconds(2))
          log.record("clock 2 s")
        }
        group.addTask {
          try await Task.sleep(for: .seconds(1))  // allowed: virtual time
          log.record("task 1 s")
        }
        group.addTask {
          try await Task.sleep(for: .seconds(3))  // allowed: virtual time
          log.record("task 3 s")
        }
      }
    }
    #expect(log.values == ["task 1 s", "clock 2 s", "task 3 s"])
  }

  @Test func aPlainTestClockStaysPutAndItsSleeperIsADeadlock() async throws {
    let clock = TestClock()
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling { try await clock.sleep(for: .seconds(1)) }
    }
    #expect(error?.tasks.first?.contains("the TestClock to reach") == true)
    #expect(clock.now == .zero)
  }

  @Test func aCancelledSleeperDoesNotMoveTheClock() async throws {
    let clock = TestClock(advancesAutomatically: true)
    try await withDeterministicScheduling {
      let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
      try await clock.waitForSleepers(count: 1)
      sleeper.cancel()
      _ = await sleeper.result
    }
    #expect(clock.now == .zero)
  }

  @Test func outsideADeterministicRunTheTestStillMovesTime() async throws {
    let clock = TestClock(advancesAutomatically: true)
    let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
    try await clock.waitForSleepers(count: 1)
    #expect(clock.now == .zero)
    await clock.advance(by: .seconds(5))
    try await sleeper.value
  }
}
