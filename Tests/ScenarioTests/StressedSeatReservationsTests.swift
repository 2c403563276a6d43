import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Synchronization
import Testing

/// `checkLinearizability(.stress(…))` on a class whose races only real threads show: seats a
/// `Mutex` guards, reserved in one section (correct) or checked in one and taken in another
/// (broken). Disabled under the thread sanitizer, which does not see `Mutex`'s locking on Linux
/// and reports the seats it guards as a race.
@Suite(
  .timeLimit(.minutes(SuiteTimeLimit.minutes)),
  .disabled(if: ThreadSanitizer.isActive, "the thread sanitizer does not see Mutex's locking"))
struct StressedSeatReservationsTests {
  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
  static func operations() -> [LinearizabilityOperation<SeatReservations, Never>] {
    [
      .call("reserve") { $0.reserve() },
      .call("free") { $0.free },
    ]
  }

  /// 300 overlapping runs beside the rest of the suite; `scripts/stress-mode.sh` runs it alone
  /// with `LOCKSTEP_STRESS_COUNT=10000`.
  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
  @Test func seatsReservedInOneMutexSectionPass() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .stress(runs: 300),
        scenarios: .random(1, tasks: 2...2, callsPerTask: 2...2, callsBefore: 0...0, callsAfter: 0...0),
        timeout: .seconds(40),
        of: { SeatReservations(variant: .correct, seats: 2) }, operations: Self.operations())
    }
    expectIssues(issues, containing: [])
    #expect(result.passed && result.overlappingRuns == result.runsPerScenario, "\(result)")
  }

  /// The race falls in 0.2–6 % of the runs whose calls overlapped (2-core Linux, debug build,
  /// alone or beside a second copy of this test): 10,000 overlapping runs all pass with a chance
  /// under 1e-6 even at the lowest rate measured alone, 0.18 % ((1 − 0.0018)^10,000 ≈ 1.5e-8).
  /// `timeout:` bounds the runs, so a busy machine ends the check well within the time limit.
  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
  @Test(.enabled(if: LongStressRuns.areEnabled, "a long check: scripts/stress-mode.sh"))
  func aCheckThenActAcrossTwoMutexSectionsFails() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .stress(runs: 10_000),
        scenarios: .random(1, tasks: 2...2, callsPerTask: 1...1, callsBefore: 0...0, callsAfter: 0...0),
        timeout: .seconds(40),
        of: { SeatReservations(variant: .broken, seats: 1) },
        operations: [.call("reserve") { $0.reserve() }])
    }
    expectOneIssue(
      issues, containing: "found results that no order of the calls gives",
      "reserve() → true | reserve() → true", "no timeline or replay token;", "overlapped; it failed in")
    #expect(result.failure?.isNotLinearizable == true, "\(result)")
  }

  /// The suite's version: seats whose two sections meet — a reservation that checked waits,
  /// briefly and boundedly, for another to check too — so that every run whose calls overlap
  /// fails, and the check fails even when few runs overlap.
  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
  @Test func aCheckThenActWhoseSectionsMeetFailsInTheOverlappingRuns() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .stress(runs: 100),
        scenarios: .random(1, tasks: 2...2, callsPerTask: 1...1, callsBefore: 0...0, callsAfter: 0...0),
        timeout: .seconds(40), of: { MeetingSeats() }, operations: [.call("reserve") { $0.reserve() }])
    }
    expectOneIssue(
      issues, containing: "found results that no order of the calls gives",
      "reserve() → true | reserve() → true", "no timeline or replay token;", "overlapped; it failed in")
    #expect(result.failure?.isNotLinearizable == true, "\(result)")
    #expect(result.failure.map { $0.failedOverlappingRuns > 0 } == true, "\(result)")
  }
}

/// One seat, checked under a `Mutex` and taken under it again; between the two, a reservation
/// waits up to 2 ms for another one to have checked too.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private final class MeetingSeats: Sendable {
  private let state = Mutex((free: 1, checked: 0))

  func reserve() -> Bool {
    let free = state.withLock { state in
      state.checked += 1
      return state.free
    }
    guard free > 0 else { return false }
    let until = ContinuousClock.now + .milliseconds(2)
    while state.withLock({ $0.checked }) < 2 && ContinuousClock.now < until {}
    state.withLock { $0.free -= 1 }
    return true
  }
}
