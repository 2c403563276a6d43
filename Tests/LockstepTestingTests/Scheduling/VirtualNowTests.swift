import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// The virtual times at which the run's sleepers woke, in order.
private func wakeTimes(_ trace: SchedulerTrace) -> [Duration] {
  trace.steps.filter(\.wokeFromSleep).map(\.time)
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct VirtualNowAvailabilityTests {
  @Test func virtualNowIsInEffectOnLinuxUnlessTurnedOff() {
    if ProcessInfo.processInfo.environment[VirtualNowSupport.variable] == "1" {
      #expect(!VirtualNow.isAvailable)
      #expect(VirtualNow.unavailableReason == "LOCKSTEP_REAL_NOW=1 is set")
    } else {
      #if os(Linux)
        #expect(VirtualNow.isAvailable, "\(VirtualNow.unavailableReason ?? "")")
      #else
        #expect(!VirtualNow.isAvailable)
        #expect(VirtualNow.unavailableReason != nil)
      #endif
    }
  }

  @Test func aRunWithoutVirtualNowSaysSoInItsTraceAndReports() async throws {
    let deadlock = await VirtualNow.withRealClocks {
      await #expect(throws: DeterministicDeadlock.self) {
        try await withDeterministicScheduling {
          await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
        }
      }
    }
    let report = try #require(deadlock)
    #expect(!report.trace.readsVirtualNow)
    #expect("\(report)".contains("Now read the real clocks in this run"), "\(report)")
  }
}

/// Code that reads `ContinuousClock.now`, `SuspendingClock.now` and `Date()` itself, with no clock
/// injected, inside deterministic runs. The sleeps are the subject: they run in virtual time.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: VirtualNow.isAvailable))
struct VirtualNowTests {
  @Test func aDebounceThatReSleepsUntilItsContinuousClockDeadlineRunsInVirtualTime() async throws {
    var fired: [Duration] = []
    let outcome = try await runDeterministically {
      let start = ContinuousClock.now
      let deadline = Locked(start + .milliseconds(80))
      let debounce = Task(name: "debounce") {
        // Re-sleeps until the deadline the "keystrokes" below keep moving.
        while ContinuousClock.now < deadline.withLock({ $0 }) {
          try await Task.sleep(until: deadline.withLock { $0 }, clock: .continuous)
        }
        return start.duration(to: ContinuousClock.now)
      }
      for _ in 0..<4 {
        try await Task.sleep(for: .milliseconds(30))
        deadline.withLock { $0 = ContinuousClock.now + .milliseconds(80) }
      }
      fired.append(try await debounce.value)
    }
    #expect(fired == [.milliseconds(200)])
    #expect(outcome.trace.readsVirtualNow)
    #expect(outcome.trace.steps.last?.time == .milliseconds(200))
  }

  @Test func aTimerThatAddsItsIntervalToItsLastDeadlineTicksExactly() async throws {
    var ticks: [Duration] = []
    try await withDeterministicScheduling {
      let start = SuspendingClock.now
      var next = start
      for _ in 0..<10 {
        next += .milliseconds(100)
        try await Task.sleep(until: next, clock: .suspending)
        ticks.append(start.duration(to: SuspendingClock.now))
      }
    }
    #expect(ticks == (1...10).map { .milliseconds(100 * $0) })
  }

  @Test func dateDifferenceAcrossATenMinuteSleepIsExactlySixHundredSeconds() async throws {
    var elapsed: TimeInterval?
    var started: Date?
    try await withDeterministicScheduling {
      let before = Date()
      started = before
      try await Task.sleep(for: .seconds(600))
      elapsed = Date().timeIntervalSince(before)
    }
    #expect(elapsed == 600)
    #expect(started == VirtualNow.defaultStartDate)
    #expect(started?.timeIntervalSinceReferenceDate == 0)
  }

  @Test func suspendingClockDifferenceAcrossASleepIsExact() async throws {
    var elapsed: Duration?
    try await withDeterministicScheduling {
      let before = SuspendingClock.now
      try await SuspendingClock().sleep(for: .seconds(3_600))
      elapsed = before.duration(to: SuspendingClock.now)
    }
    #expect(elapsed == .seconds(3_600))
  }

  @Test func everyDurationIsExactDownToANanosecond() async throws {
    let durations: [Duration] = [
      .nanoseconds(1), .microseconds(1.5), .milliseconds(80), .seconds(2.08), .milliseconds(333),
      .nanoseconds(999), .microseconds(37), .seconds(1) + .nanoseconds(1),
    ]
    let outcome = try await runDeterministically {
      for duration in durations { try await Task.sleep(for: duration) }
      try await Task.sleep(nanoseconds: 7)
      try await ContinuousClock().sleep(until: .now + .nanoseconds(3))
    }
    var expected: [Duration] = []
    var now = Duration.zero
    for duration in durations + [.nanoseconds(7), .nanoseconds(3)] {
      now += duration
      expected.append(now)
    }
    #expect(wakeTimes(outcome.trace) == expected)
  }

  @Test func theStartDateIsSettablePerRun() async throws {
    let chosen = Date(timeIntervalSince1970: 1_767_225_600)
    var seen: [Date] = []
    try await VirtualNow.withStartDate(chosen) {
      try await withDeterministicScheduling {
        seen.append(Date())
        try await Task.sleep(for: .seconds(90))
        seen.append(Date())
      }
    }
    try await withDeterministicScheduling { seen.append(Date()) }
    #expect(seen == [chosen, chosen + 90, VirtualNow.defaultStartDate])
  }

  @Test func twoRunsBackToBackEachStartAtTheirOwnStartInstant() async throws {
    var dates: [Date] = []
    var spans: [Duration] = []
    for _ in 0..<2 {
      try await withDeterministicScheduling {
        let start = ContinuousClock.now
        dates.append(Date())
        try await Task.sleep(for: .seconds(60))
        spans.append(start.duration(to: .now))
        dates.append(Date())
      }
    }
    let start = VirtualNow.defaultStartDate
    #expect(dates == [start, start + 60, start, start + 60])
    #expect(spans == [.seconds(60), .seconds(60)])
  }

  @Test func otherThreadsReadRealTimeWhileARunSleepsAnHour() async throws {
    // A thread that reads the clocks whenever the run asks, before and after an hour of sleep.
    let readings = Locked<[(ContinuousClock.Instant, Date)]>([])
    let ask = DispatchSemaphore(value: 0)
    let answered = DispatchSemaphore(value: 0)
    let reader = Thread {
      for _ in 0..<2 {
        ask.wait()
        readings.withLock { $0.append((ContinuousClock.now, Date())) }
        answered.signal()
      }
    }
    reader.start()
    var inside: [ContinuousClock.Instant] = []
    try await withDeterministicScheduling {
      inside.append(ContinuousClock.now)
      ask.signal()
      answered.wait()  // a blocking hand-off to the reader thread, not a wait for time to pass
      try await Task.sleep(for: .seconds(3_600))
      inside.append(ContinuousClock.now)
      ask.signal()
      answered.wait()
    }
    let seen = readings.withLock { $0 }
    try #require(seen.count == 2 && inside.count == 2)
    #expect(inside[0].duration(to: inside[1]) == .seconds(3_600))
    #expect(seen[0].0.duration(to: seen[1].0) < .seconds(60), "the reader saw real time")
    #expect(seen[1].1.timeIntervalSince(seen[0].1) < 60)
    #expect(abs(seen[0].1.timeIntervalSinceNow) < 600, "the reader saw today's date")
  }

  @Test func lockstepsOwnBoundsStayRealInsideARun() async throws {
    var inside: ContinuousClock.Instant?
    var real: ContinuousClock.Instant?
    try await withDeterministicScheduling {
      try await Task.sleep(for: .seconds(3_600))
      inside = ContinuousClock.now
      real = RealTime.now
    }
    let inRun = try #require(inside)
    let outside = try #require(real)
    // An hour of virtual time passed inside; Lockstep's own reading of the clock did not move.
    #expect(outside < inRun - .seconds(3_000))
  }

  @Test func dispatchTimeAndTheCLibrarysClockReadsAreVirtualToo() async throws {
    var dispatch: (DispatchTime, DispatchTime)?
    var wall: (time_t, timeval, timeval)?
    try await withDeterministicScheduling {
      let first = DispatchTime.now()
      var before = timeval()
      gettimeofday(&before, nil)
      try await Task.sleep(for: .seconds(10) + .microseconds(250))
      var after = timeval()
      gettimeofday(&after, nil)
      dispatch = (first, DispatchTime.now())
      wall = (time(nil), before, after)
    }
    let (first, second) = try #require(dispatch)
    #expect(second.uptimeNanoseconds - first.uptimeNanoseconds == 10_000_250_000)
    let (seconds, before, after) = try #require(wall)
    #expect(seconds == 978_307_210)
    #expect(before.tv_sec == 978_307_200 && before.tv_usec == 0)
    #expect(after.tv_sec == 978_307_210 && after.tv_usec == 250)
  }

  @Test func aRunReadsTheRealClocksWhereItAsksFor() async throws {
    let before = Date()
    let (virtual, real, realElapsed) = try await withDeterministicScheduling {
      let started = VirtualNow.readingRealClocks { ContinuousClock.now }
      try await Task.sleep(for: .seconds(3600))  // virtual: no real time passes
      let realDate = VirtualNow.readingRealClocks { Date() }
      return (Date(), realDate, VirtualNow.readingRealClocks { ContinuousClock.now } - started)
    }
    #expect(virtual == VirtualNow.defaultStartDate.addingTimeInterval(3600))
    #expect(abs(real.timeIntervalSince(before)) < 600, "\(real) read in the run, \(before) before it")
    #expect(realElapsed < .seconds(600), "real time, not the hour of virtual time")
  }

  @Test func aDispatchDeadlineComputedInsideARunDoesNotFireAtOnce() async throws {
    var deadline: DispatchTime?
    let before = DispatchTime.now()
    try await withDeterministicScheduling {
      try await Task.sleep(for: .seconds(5))
      deadline = .now() + .seconds(30)
    }
    let after = DispatchTime.now()
    let due = try #require(deadline)
    // The run first read the clock after its 5 s sleep, at a moment of real time between `before`
    // and `after`: the deadline lies 30 s after that moment, not in the past and not 5 s further.
    #expect(due >= before + .seconds(30) && due <= after + .seconds(30))
  }
}

@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: VirtualNow.isAvailable))
struct VirtualStartDateTests {
  @Test func aMainActorTestSetsTheStartDateOfItsRuns() async throws {
    let chosen = Date(timeIntervalSince1970: 1_767_225_600)
    var seen: [Date] = []
    try await VirtualNow.withStartDate(chosen) {
      seen.append(Date())  // outside a run: real time
      try await withDeterministicScheduling { @MainActor in seen.append(Date()) }
    }
    #expect(seen.count == 2 && seen.last == chosen)
    #expect(abs(seen[0].timeIntervalSinceNow) < 600, "outside the run, Date() is real")
  }
}

final class VirtualStartDateXCTests: XCTestCase {
  func testABlockingRunStartsAtTheStartDateOfItsScope() throws {
    try XCTSkipUnless(VirtualNow.isAvailable)
    let chosen = Date(timeIntervalSince1970: 1_767_225_600)
    let outcome = try VirtualNow.withStartDate(chosen) {
      try withDeterministicSchedulingBlocking { () async throws -> Date in
        try await Task.sleep(for: .seconds(30))  // virtual time
        return Date()
      }
    }
    XCTAssertEqual(outcome.value, chosen + 30)
    XCTAssertTrue(outcome.trace.readsVirtualNow)
  }
}
