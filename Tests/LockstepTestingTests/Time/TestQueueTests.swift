import Lockstep
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@MainActor
private final class MainLog {
  var entries: [String] = []
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TestQueueTests {
  @Test func nothingRunsUntilTheTestSaysSo() {
    let queue = TestQueue()
    let log = EventRecorder<String>("work")
    queue.schedule { log.record("a") }
    queue.schedule(after: .seconds(1)) { log.record("later") }
    queue.schedule { log.record("b") }
    #expect(queue.pendingCount == 3)
    #expect(log.values.isEmpty)
    #expect(queue.runDueWork() == 2)
    #expect(log.values == ["a", "b"])
    #expect(queue.pendingCount == 1)
    #expect(queue.pendingDeadlines == [SchedulerTime(offset: .seconds(1))])
    #expect(queue.now == SchedulerTime(offset: .zero))
  }

  @Test func runningDueWorkIncludesWorkThatWorkScheduledForNow() {
    let queue = TestQueue()
    let log = EventRecorder<String>("work")
    queue.schedule {
      log.record("outer")
      queue.schedule { log.record("inner") }
      queue.schedule(after: .milliseconds(1)) { log.record("delayed") }
    }
    #expect(queue.runDueWork() == 2)
    #expect(log.values == ["outer", "inner"])
    #expect(queue.pendingCount == 1)
  }

  @Test func advanceRunsDueWorkInDeadlineOrderTiesInSubmissionOrder() async {
    let queue = TestQueue()
    let log = EventRecorder<String>("work")
    queue.schedule(after: .milliseconds(3)) { log.record("3") }
    queue.schedule(after: .milliseconds(1)) { log.record("1a") }
    queue.schedule(at: SchedulerTime(offset: .milliseconds(2))) { log.record("2") }
    queue.schedule(after: .milliseconds(1)) { log.record("1b") }
    #expect(await queue.advance(by: .microseconds(999)) == 0)
    #expect(await queue.advance(by: .microseconds(1001)) == 3)
    #expect(log.values == ["1a", "1b", "2"])
    #expect(queue.now.offset == .milliseconds(2))
    #expect(queue.pendingCount == 1)
    #expect(await queue.advance(to: SchedulerTime(offset: .milliseconds(3))) == 1)
    #expect(log.values == ["1a", "1b", "2", "3"])
  }

  @Test func anAdvanceIsOneJumpAndRunSteps() async {
    let queue = TestQueue()
    let ticks = EventRecorder<Duration>("ticks")
    @Sendable func tick(_ remaining: Int) {
      ticks.record(queue.now.offset)
      if remaining > 1 { queue.schedule(after: .seconds(1)) { tick(remaining - 1) } }
    }
    queue.schedule(after: .seconds(1)) { tick(3) }
    await queue.advance(by: .seconds(5))  // one jump: the tick at 1 s reschedules for 6 s
    #expect(ticks.values == [.seconds(5)])
    #expect(queue.pendingDeadlines == [SchedulerTime(offset: .seconds(6))])
    #expect(await queue.run() == 2)  // steps: 6 s, then 7 s
    #expect(ticks.values == [.seconds(5), .seconds(6), .seconds(7)])
    #expect(queue.pendingCount == 0)
  }

  @Test func cancelledWorkNeverRuns() async {
    let queue = TestQueue()
    let log = EventRecorder<String>("work")
    let early = queue.schedule { log.record("early") }
    let later = Locked<ScheduledWork?>(nil)
    queue.schedule(after: .seconds(1)) {
      log.record("first")
      later.value?.cancel()
    }
    later.withLock { $0 = queue.schedule(after: .seconds(2)) { log.record("cancelled by first") } }
    early.cancel()
    early.cancel()  // idempotent
    #expect(early.isCancelled)
    #expect(queue.pendingCount == 2)
    await queue.advance(by: .seconds(3))
    #expect(log.values == ["first"])
    #expect(later.value?.isCancelled == true)
    #expect(queue.pendingCount == 0)
    let ran = queue.schedule { log.record("ran") }
    queue.runDueWork()
    ran.cancel()  // after it ran: nothing happens
    #expect(log.values == ["first", "ran"])
  }

  @Test func movingBackwardsIsAReportedMisuse() async {
    let queue = TestQueue()
    await queue.advance(by: .seconds(1))
    let (ran, issues) = await collectingIssues {
      let byNegative = await queue.advance(by: .milliseconds(-1))
      let toEarlier = await queue.advance(to: SchedulerTime(offset: .zero))
      return byNegative + toEarlier
    }
    #expect(ran == 0)
    #expect(issues.count == 2)
    #expect(issues.allSatisfy { $0.site.fileID.description == "LockstepTestingTests/TestQueueTests.swift" })
    // Each report names the misused call with its argument, and the time the queue stays at.
    #expect(
      issues.first?.message.contains("TestQueue.advance(by: \(Duration.milliseconds(-1).lockstepText))")
        == true)
    #expect(issues.first?.message.contains("\(queue.now)") == true)
    #expect(issues.last?.message.contains("TestQueue.advance(to: \(SchedulerTime(offset: .zero)))") == true)
    #expect(issues.last?.message.contains("the clock is at \(queue.now)") == true)
    #expect(queue.now.offset == .seconds(1))
  }

  @Test func workScheduledWithAPastDeadlineIsDueNow() async {
    let queue = TestQueue()
    await queue.advance(by: .seconds(2))
    let log = EventRecorder<String>("work")
    queue.schedule(at: SchedulerTime(offset: .seconds(1))) { log.record("past") }
    queue.schedule(after: .seconds(-1)) { log.record("negative") }
    #expect(queue.pendingDeadlines == [queue.now, queue.now])
    #expect(queue.runDueWork() == 2)
    #expect(log.values == ["past", "negative"])
  }

  @Test func runningDueWorkLeavesOtherQueuesAlone() {
    let clock = TestClock()
    let main = TestQueue("main", clock: clock)
    let background = TestQueue("background", clock: clock)
    let log = EventRecorder<String>("work")
    background.schedule {
      log.record("background")
      main.schedule { log.record("main") }
    }
    #expect(main.runDueWork() == 0)
    #expect(background.runDueWork() == 1)
    #expect(log.values == ["background"])
    #expect(main.pendingCount == 1)
    #expect(background.pendingCount == 0)
    #expect(main.description.hasPrefix("main: 1 pending"))
    #expect(main.runDueWork() == 1)
    #expect(log.values == ["background", "main"])
    #expect(main.description.hasPrefix("main: nothing pending"))
  }

  @Test func aQueueAndItsClockShareOneTimeline() async throws {
    let clock = TestClock()
    let queue = TestQueue(clock: clock)
    let sleepersSeen = EventRecorder<Int>("sleepers seen by the work")
    let sleeper = Task { try await clock.sleep(for: .seconds(2)) }
    try await clock.waitForSleepers(count: 1)
    queue.schedule(after: .seconds(1)) { sleepersSeen.record(clock.sleeperCount) }
    queue.schedule(after: .seconds(3)) { sleepersSeen.record(clock.sleeperCount) }

    // Advancing the clock runs the queue's work too, interleaved in deadline order: the sleeper
    // (due at 2 s) is still asleep for the work at 1 s, and woken for the work at 3 s.
    #expect(await clock.advance(by: .seconds(3)) == 1)
    try await sleeper.value
    #expect(sleepersSeen.values == [1, 0])
    #expect(queue.now.offset == .seconds(3))

    // Advancing the queue wakes the clock's sleepers.
    let second = Task { try await clock.sleep(for: .seconds(1)) }
    try await clock.waitForSleepers(count: 1)
    #expect(await queue.advance(by: .seconds(1)) == 0)
    try await second.value
    #expect(clock.now.offset == .seconds(4))
  }

  @Test func sameDeadlineSleeperAndWorkKeepRegistrationOrder() async throws {
    let clock = TestClock()
    let queue = TestQueue(clock: clock)
    let seen = EventRecorder<Int>("sleepers seen")
    queue.schedule(after: .seconds(1)) { seen.record(clock.sleeperCount) }  // before the sleeper
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    try await clock.waitForSleepers(count: 1)
    queue.schedule(after: .seconds(1)) { seen.record(clock.sleeperCount) }  // after it
    await queue.run()
    try await sleeper.value
    #expect(seen.values == [1, 0])
  }

  @MainActor @Test func workDrivenFromTheMainActorRunsOnTheMainActor() async {
    let main = TestQueue("main")
    let log = MainLog()
    main.schedule { MainActor.assumeIsolated { log.entries.append("now") } }
    main.schedule(after: .seconds(1)) { MainActor.assumeIsolated { log.entries.append("later") } }
    main.runDueWork()
    #expect(log.entries == ["now"])
    await main.advance(by: .seconds(1))
    #expect(log.entries == ["now", "later"])
  }

  @Test func manyItemsRunInOrder() async {
    let queue = TestQueue()
    let order = EventRecorder<Int>("order")
    let seed = Interleavings.sessionSeed  // LOCKSTEP_SEED when set, to replay a failure
    var generator = SplitMix64(seed: seed)
    let deadlines = (0..<2_000).map { _ in generator.next(below: 50) }
    var handles: [ScheduledWork] = []
    for (index, deadline) in deadlines.enumerated() {
      handles.append(queue.schedule(after: .milliseconds(deadline)) { order.record(index) })
    }
    for index in stride(from: 0, to: deadlines.count, by: 3) { handles[index].cancel() }
    await queue.advance(by: .milliseconds(25))
    await queue.run()
    let expected = deadlines.indices.filter { $0 % 3 != 0 }.sorted {
      (deadlines[$0], $0) < (deadlines[$1], $1)
    }
    #expect(order.values == expected, "deadlines from seed \(seed); replay with LOCKSTEP_SEED=\(seed)")
  }

  @Test func runDueWorkGivesUpOnWorkThatSchedulesWorkForNowForeverAndReturns() async {
    let queue = TestQueue("spinning")
    @Sendable func spin() { queue.schedule { spin() } }
    spin()
    let line: UInt = #line + 1
    let (ran, issues) = await collectingIssues { queue.runDueWork(timeout: .milliseconds(1)) }
    #expect(ran > 0)
    #expect(queue.pendingCount == 1)  // the loop is still scheduled: runDueWork stopped, not the work
    #expect(issues.count == 1)
    let message = issues.first?.message ?? ""
    let bound = FailureBoundScale.text(.milliseconds(1))
    #expect(message.contains("TestQueue.runDueWork() gave up after \(bound)"))
    #expect(message.contains("spinning"))
    #expect(issues.first?.site.line == line)
  }

  @Test func advanceGivesUpOnWorkThatSchedulesWorkForNowForeverAndReturns() async {
    let queue = TestQueue()
    @Sendable func spin() { queue.schedule { spin() } }
    queue.schedule(after: .seconds(1)) { spin() }
    let line: UInt = #line + 2
    let (ran, issues) = await collectingIssues {
      await queue.advance(by: .seconds(1), timeout: .milliseconds(1))
    }
    #expect(ran > 0)
    #expect(queue.now.offset == .seconds(1))
    #expect(queue.pendingCount == 1)
    #expect(issues.count == 1)
    let message = issues.first?.message ?? ""
    #expect(message.contains("TestQueue.advance(by: \(Duration.seconds(1).lockstepText)) gave up after"))
    #expect(issues.first?.site.line == line)
  }

  @Test func runGivesUpOnWorkThatReschedulesItselfForeverAndReturns() async {
    let queue = TestQueue()
    @Sendable func tick() { queue.schedule(after: .seconds(1)) { tick() } }
    tick()
    let line: UInt = #line + 1
    let (ran, issues) = await collectingIssues { await queue.run(timeout: .milliseconds(1)) }
    #expect(ran > 0)
    #expect(queue.now.offset == .seconds(ran))  // one tick per second of virtual time
    #expect(queue.pendingCount == 1)
    #expect(issues.count == 1)
    let message = issues.first?.message ?? ""
    #expect(message.contains("TestQueue.run() gave up after \(FailureBoundScale.text(.milliseconds(1)))"))
    #expect(issues.first?.site.line == line)
  }
}
