import Dispatch
import Lockstep
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
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
    // Each report names the misused call with its argument, and the time the clock stays at.
    #expect(
      issues.first?.message.contains("TestClock.advance(by: \(Duration.milliseconds(-1).lockstepText))")
        == true)
    #expect(issues.first?.message.contains("\(clock.now)") == true)
    #expect(issues.last?.message.contains("TestClock.advance(to: \(TestClock.Instant.zero))") == true)
    #expect(issues.last?.message.contains("the clock is at \(clock.now)") == true)
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
    #expect(clock.now.offset == .milliseconds(10))
    #expect(clock.sleeperCount == 0)
  }

  @Test func theDescriptionSaysTheTimeTheSleepersAndTheNextDeadline() async throws {
    let clock = TestClock()
    await clock.advance(by: .milliseconds(10))
    #expect(clock.description.contains("\(clock.now)"))
    #expect(clock.description.contains("0 sleeper(s)"))
    #expect(!clock.description.contains("next deadline"))
    let sleepers = [
      Task { try await clock.sleep(for: .milliseconds(90)) },
      Task { try await clock.sleep(for: .milliseconds(30)) },
    ]
    try await clock.waitForSleepers(count: 2)
    #expect(clock.description.contains("2 sleeper(s)"))
    #expect(clock.description.contains("next deadline \(TestClock.Instant(offset: .milliseconds(40)))"))
    await clock.run()
    for sleeper in sleepers { try await sleeper.value }
    #expect(clock.description.contains("\(clock.now)"))
    #expect(!clock.description.contains("next deadline"))
  }

  @Test func toleranceIsIgnoredASleeperWakesExactlyAtItsDeadline() async throws {
    let clock = TestClock()
    let until = Task {
      try await clock.sleep(until: .zero.advanced(by: .milliseconds(80)), tolerance: .seconds(1))
    }
    let forDuration = Task { try await clock.sleep(for: .milliseconds(80), tolerance: .seconds(1)) }
    try await clock.waitForSleepers(count: 2)
    let deadline = TestClock.Instant.zero.advanced(by: .milliseconds(80))
    #expect(clock.pendingDeadlines == [deadline, deadline])
    #expect(await clock.advance(by: .milliseconds(79)) == 0)
    #expect(await clock.advance(by: .milliseconds(1)) == 2)
    // A woken sleeper returns normally even if cancelled now; one still asleep would throw.
    until.cancel()
    forDuration.cancel()
    try await until.value
    try await forDuration.value
  }

  @Test func aWokenSleeperWhoseExecutorIsHeldIsReportedAndAdvanceReturns() async throws {
    let clock = TestClock()
    let executor = HeldTaskExecutor()
    let sleeper = Task(executorPreference: executor) { try await clock.sleep(for: .seconds(1)) }
    try await clock.waitForSleepers(count: 1)
    executor.hold()  // the woken sleeper cannot run again until released
    let line: UInt = #line + 2
    let (woken, issues) = await collectingIssues {
      await clock.advance(by: .seconds(1), timeout: .milliseconds(20))
    }
    #expect(woken == 1)
    #expect(clock.now.offset == .seconds(1))
    #expect(issues.count == 1)
    let message = issues.first?.message ?? ""
    #expect(message.contains("TestClock.advance(by: \(Duration.seconds(1).lockstepText))"))
    #expect(message.contains("did not return from sleep within \(FailureBoundScale.text(.milliseconds(20)))"))
    #expect(issues.first?.site.line == line)
    executor.release()
    try await sleeper.value
  }

  @Test func runGivesUpOnWorkThatReschedulesItselfForeverAndReturns() async {
    let clock = TestClock()
    let queue = TestQueue(clock: clock)
    @Sendable func tick() { queue.schedule(after: .seconds(1)) { tick() } }
    tick()
    let line: UInt = #line + 1
    let (_, issues) = await collectingIssues { await clock.run(timeout: .milliseconds(1)) }
    #expect(issues.count == 1)
    let message = issues.first?.message ?? ""
    #expect(message.contains("TestClock.run() gave up after \(FailureBoundScale.text(.milliseconds(1)))"))
    #expect(issues.first?.site.line == line)
    #expect(queue.pendingCount == 1)  // the loop is still scheduled: run stopped, not the work
    #expect(clock.now.offset >= .seconds(1))
  }
}

/// A task executor that the test can hold: jobs enqueued while it is held wait until it is
/// released. It runs jobs on a serial queue of its own.
private final class HeldTaskExecutor: TaskExecutor, Sendable {
  private let state = Locked<(held: Bool, jobs: [UnownedJob])>((false, []))
  private let queue = DispatchQueue(label: "lockstep.test.held-executor")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let runNow = state.withLock { state in
      if state.held { state.jobs.append(job) }
      return !state.held
    }
    if runNow { run(job) }
  }

  func hold() { state.withLock { $0.held = true } }

  func release() {
    let jobs = state.withLock { state in
      state.held = false
      defer { state.jobs = [] }
      return state.jobs
    }
    for job in jobs { run(job) }
  }

  private func run(_ job: UnownedJob) {
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
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
    #expect(clock.description.contains("\(clock.now)"))
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
