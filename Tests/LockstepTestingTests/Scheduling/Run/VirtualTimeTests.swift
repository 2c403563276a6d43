import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// The virtual times at which the run's sleepers woke, in order.
private func wakeTimes(_ trace: SchedulerTrace) -> [Duration] {
  trace.steps.filter(\.wokeFromSleep).map(\.time)
}

/// Sleeps of mixed durations: multiples of `unit` up to 2,000 of them, and whole seconds; with
/// `fine`, also durations to the nanosecond (1.5 µs, 2.08 s and the like).
private func mixedDurations(
  count: Int, seed: UInt64, unit: Duration = .milliseconds(1), fine: Bool = false
) -> [Duration] {
  var state = seed
  return (0..<count).map { index in
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    let value = Int((state >> 33) % 2_000) + 1
    if fine && index % 5 == 1 { return .nanoseconds(Int64(state >> 40) + 1) }
    if fine && index % 5 == 3 { return .microseconds(Double(value) * 1.5) }
    return index % 5 == 4 ? .seconds(value % 60 + 1) : unit * value
  }
}

/// Runs `body` in runs that read virtual now, or with the fallback forced (`virtualNow` false):
/// runs that read the real clocks and recover each sleep's duration from them.
private func inMode<T>(virtualNow: Bool, _ body: () async throws -> T) async rethrows -> T {
  virtualNow ? try await body() : try await VirtualNow.withRealClocks { try await body() }
}

/// Both modes where this platform has virtual now; the fallback alone elsewhere.
private let modes = VirtualNow.isAvailable ? [true, false] : [false]

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct VirtualTimeTests {
  /// The fallback recovers a sleep from two real-clock readings a hand-over apart; under the
  /// thread sanitizer (which sets `LOCKSTEP_TIMEOUT_SCALE`) beside the suite's other runs, a
  /// hand-over is now and then preempted for longer than the 10 ms these durations are apart, and
  /// the reading passes for the next one. There the fallback's exactness is not checked.
  @Test(
    arguments: modes.filter {
      $0 || ProcessInfo.processInfo.environment["LOCKSTEP_TIMEOUT_SCALE"] == nil
    })
  func everySleepLastsExactlyItsDuration(virtualNow: Bool) async throws {
    // Multiples of 10 ms: a preempted reading then cannot pass for the sleep by chance (see
    // `SleepRequest.recover`); scripts/exact-time.sh checks whole milliseconds by the 100,000.
    let durations = mixedDurations(count: 2_000, seed: 7, unit: .milliseconds(10))
    // The sleeps are the subject: they run in the run's virtual time and take no real time.
    let outcome = try await inMode(virtualNow: virtualNow) {
      try await runDeterministically {
        for duration in durations { try await Task.sleep(for: duration) }
      }
    }
    #expect(outcome.trace.readsVirtualNow == virtualNow)
    var expected: [Duration] = []
    var now = Duration.zero
    for duration in durations {
      now += duration
      expected.append(now)
    }
    let woke = wakeTimes(outcome.trace)
    #expect(woke.count == durations.count)
    let firstWrong = zip(expected, woke).enumerated().first { $0.element.0 != $0.element.1 }
    #expect(firstWrong == nil, "first inexact sleep: \(String(describing: firstWrong))")
  }

  @Test(arguments: modes) func everyFormOfSleepIsExact(virtualNow: Bool) async throws {
    // Every form of sleep is the subject, in the run's virtual time.
    let outcome = try await inMode(virtualNow: virtualNow) {
      try await runDeterministically {
        try await Task.sleep(for: .milliseconds(80))
        try await Task.sleep(nanoseconds: 20_000_000)
        try await ContinuousClock().sleep(for: .seconds(1))
        try await SuspendingClock().sleep(for: .milliseconds(900))
        try await Task.sleep(until: .now + .milliseconds(500), clock: .continuous)
        try await ContinuousClock().sleep(until: .now + .seconds(2))
      }
    }
    #expect(
      wakeTimes(outcome.trace) == [
        .milliseconds(80), .milliseconds(100), .milliseconds(1_100), .milliseconds(2_000),
        .milliseconds(2_500), .milliseconds(4_500),
      ])
  }

  @Test(arguments: modes) func aSleepIsCreditedToTheTaskThatSleeps(virtualNow: Bool) async throws {
    let outcome = try await inMode(virtualNow: virtualNow) {
      try await runDeterministically {
        let sleeper = Task(name: "sleeper") {
          for _ in 0..<100 { try? await Task.sleep(for: .milliseconds(10)) }
        }
        await sleeper.value
      }
    }
    // The body and the sleeper, and no task for each of the runtime's 100 wake-ups.
    #expect(Set(outcome.trace.steps.compactMap(\.task)) == [1, 2])
    #expect(outcome.trace.taskNames[2] == "sleeper")
    let sleeperLines = outcome.trace.timeline.entries.filter { $0.task == 2 }
    #expect(sleeperLines.contains { $0.actions.contains("sleeps until 10 ms") })
    #expect(sleeperLines.filter { $0.actions.first == "woke from its sleep" }.count == 100)
    #expect(outcome.trace.steps.last?.time == .seconds(1))
  }

  @Test(arguments: modes) func durationsPrintAsPeopleWriteThem(virtualNow: Bool) async throws {
    let outcome = try await inMode(virtualNow: virtualNow) {
      try await runDeterministically {
        try await Task.sleep(for: .milliseconds(2_080))
        Timeline.note("after the sleep")
      }
    }
    let text = outcome.trace.timeline.description
    #expect(text.contains("[2.08 s]"), "\(text)")
    #expect(text.contains("sleeps until 2.08 s"), "\(text)")
    #expect(!text.contains("2.0799"))
  }

  // Without virtual now (Apple platforms, LOCKSTEP_REAL_NOW=1), code that sleeps until deadlines
  // computed from the real clock stops the run; with it, the same code runs (VirtualNowTests).

  @Test func aDebounceThatReSleepsUntilARealDeadlineStopsTheRunNamingTheTask() async {
    await #expect {
      try await inMode(virtualNow: false) {
        try await withDeterministicScheduling {
          let debounce = Task(name: "debounce") {
            let deadline = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < deadline {
              try await Task.sleep(until: deadline, clock: .continuous)
            }
          }
          try await debounce.value
        }
      }
    } throws: { error in
      guard let error = error as? RealClockSleep else { return false }
      return error.task.contains("\"debounce\"") && "\(error)".contains("ContinuousClock.now")
        && "\(error)".contains("TestClock(advancesAutomatically: true)")
        && error.trace.steps.count < 20
    }
  }

  @Test func aTimerThatAddsItsIntervalToItsLastDeadlineStopsTheRun() async {
    await #expect(throws: RealClockSleep.self) {
      try await inMode(virtualNow: false) {
        try await withDeterministicScheduling {
          var next = ContinuousClock.now
          for _ in 0..<10 {
            next += .milliseconds(100)
            try await Task.sleep(until: next, clock: .continuous)
          }
        }
      }
    }
  }

  @Test(arguments: modes) func sleepsForADurationInALoopAreNotMistakenForRealDeadlines(virtualNow: Bool)
    async throws
  {
    let outcome = try await inMode(virtualNow: virtualNow) {
      try await runDeterministically {
        for _ in 0..<1_000 { try await Task.sleep(for: .milliseconds(100)) }
        for _ in 0..<100 { try await SuspendingClock().sleep(for: .seconds(1)) }
      }
    }
    // Every sleep ran, none was taken for a real deadline; that each lasts exactly its duration
    // is `everySleepLastsExactlyItsDuration`'s subject.
    #expect(wakeTimes(outcome.trace).count == 1_100)
    let end = outcome.trace.steps.last?.time ?? .zero
    if virtualNow {
      #expect(end == .seconds(200))
    } else {
      #expect(end > .seconds(199) && end < .seconds(201))
    }
  }

  @Test func aWaitThatTimesOutInARunSaysItsBoundWasVirtualTime() async throws {
    await #expect {
      try await withDeterministicScheduling {
        let gate = Gate("never opened")
        let sleeper = Task { try? await Task.sleep(for: .seconds(30)) }
        try await gate.wait(timeout: .seconds(5))
        await sleeper.value
      }
    } throws: { error in
      guard let error = error as? WaitTimeoutError else { return false }
      return error.isVirtualTime && "\(error)".contains("Timed out after 5 s of virtual time")
    }
    // Outside a run the same bound is real time, and says nothing of virtual time.
    let gate = Gate("never opened either")
    await #expect {
      try await gate.wait(timeout: .milliseconds(1))
    } throws: { error in
      guard let error = error as? WaitTimeoutError else { return false }
      return !error.isVirtualTime && !"\(error)".contains("virtual")
    }
  }
}

final class VirtualTimeXCTests: XCTestCase {
  func testARealClockDeadlineStopsTheRunWithoutVirtualNow() async {
    do {
      try await VirtualNow.withRealClocks {
        try await withDeterministicScheduling {
          let deadline = SuspendingClock.now + .milliseconds(80)
          while SuspendingClock.now < deadline {
            try await SuspendingClock().sleep(until: deadline)
          }
        }
      }
      XCTFail("the run should have stopped")
    } catch let error as RealClockSleep {
      XCTAssertTrue(error.description.contains("SuspendingClock.now"))
    } catch {
      XCTFail("unexpected \(error)")
    }
  }
}

/// The long form of the exactness check, for `scripts/exact-time.sh`: as many sleeps as
/// `LOCKSTEP_EXACT_TIME_SLEEPS` says, of mixed durations (seeded by `LOCKSTEP_SEED`), and a line
/// on standard output with how many were not exact.
@Suite(.timeLimit(.minutes(max(5, SuiteTimeLimit.minutes))))
struct ExactTimeProof {
  static let sleeps = ProcessInfo.processInfo.environment["LOCKSTEP_EXACT_TIME_SLEEPS"].flatMap { Int($0) }

  @Test(.enabled(if: sleeps != nil)) func manySleepsOfMixedDurationsAreExact() async throws {
    // With virtual now, durations to the nanosecond; without, whole milliseconds and seconds.
    let durations = mixedDurations(
      count: Self.sleeps ?? 0, seed: Interleavings.sessionSeed, fine: VirtualNow.isInEffect)
    let outcome = try await runDeterministically {
      for duration in durations { try await Task.sleep(for: duration) }
    }
    let woke = wakeTimes(outcome.trace)
    var now = Duration.zero
    var inexact = 0
    for (duration, time) in zip(durations, woke) {
      now += duration
      if time != now {
        inexact += 1
        now = time
      }
    }
    let mode = outcome.trace.readsVirtualNow ? "virtual now" : "recovered from the real clock"
    print("exact-time: \(durations.count) sleeps, \(inexact) inexact (\(mode))")
    #expect(inexact == 0 && woke.count == durations.count)
  }
}
