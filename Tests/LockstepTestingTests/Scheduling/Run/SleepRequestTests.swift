import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The rule that turns the two real-clock readings of a sleep into its virtual duration.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SleepRequestTests {
  private func recover(short: Duration, long: Duration) -> Duration {
    SleepRequest.recover(short: short, long: long)
  }

  @Test func aPromptHandOverGivesTheRoundDuration() {
    // The short reading is short by the hand-over (about a microsecond); the job ran 3.4 ms before.
    #expect(recover(short: .microseconds(79_999), long: .microseconds(83_399)) == .milliseconds(80))
    #expect(recover(short: .microseconds(1_999_998), long: .microseconds(2_003_417)) == .seconds(2))
    #expect(recover(short: .nanoseconds(999_400), long: .microseconds(1_300)) == .milliseconds(1))
  }

  @Test func aPreemptedHandOverIsReadFromTheLongReading() {
    // Preempted for 6.1 ms while the sleep was handed over: the short reading is far off, the
    // long one (the job did nothing before it slept) a microsecond long.
    #expect(recover(short: .microseconds(73_900), long: .microseconds(80_001)) == .milliseconds(80))
    #expect(recover(short: .microseconds(1_500), long: .microseconds(10_002)) == .milliseconds(10))
  }

  @Test func whenBothReadingsMatchTheCloserOneWins() {
    // The job ran 1.015 ms before sleeping 80 ms: the long reading passes for 81 ms by 15 µs,
    // the short one for 80 ms by 1 µs.
    #expect(recover(short: .microseconds(79_999), long: .microseconds(81_015)) == .milliseconds(80))
    // Preempted 4.998 ms during the hand-over of a 10 ms sleep: the short reading passes for 5 ms
    // by 2 µs, the long one for 10 ms by 1 µs.
    #expect(
      recover(short: .microseconds(5_002) - .nanoseconds(4_000), long: .microseconds(10_001))
        == .milliseconds(10))
  }

  @Test func theRoundestMatchIsTaken() {
    // 2 s is also a multiple of 1 ms, 10 ms and 100 ms: the reading is read as 2 s either way,
    // and a reading 15 µs short of a whole second is that second, not a millisecond before it.
    #expect(recover(short: .microseconds(999_985), long: .microseconds(999_990)) == .seconds(1))
  }

  @Test func otherDurationsAreRoundedUpToTheGrid() {
    #expect(recover(short: .microseconds(199), long: .microseconds(400)) == .microseconds(200))
    #expect(recover(short: .nanoseconds(1_234_567), long: .microseconds(1_900)) == .microseconds(1_300))
    // A prompt hand-over of a duration on the grid keeps it, however long the job ran before.
    #expect(recover(short: .nanoseconds(1_499_999), long: .microseconds(2_700)) == .microseconds(1_500))
    #expect(recover(short: .nanoseconds(1), long: .nanoseconds(1)) == SleepRequest.grid)
  }

  @Test func whenNeitherReadingMatchesTheRoundDurationBetweenThemIsTaken() {
    // Preempted for 250.3 µs during the hand-over of an 80 ms sleep, after 41 µs of work: the
    // short reading is near neither a round duration nor the grid; 80 ms is the only multiple of
    // 10 ms between the readings.
    #expect(recover(short: .nanoseconds(79_749_700), long: .microseconds(80_041)) == .milliseconds(80))
    // Two multiples of 1 ms between them and none coarser: the grid, as before.
    #expect(recover(short: .nanoseconds(1_234_567), long: .microseconds(3_500)) == .microseconds(1_300))
  }

  @Test func aDeadlineInThePastIsNoSleep() {
    #expect(recover(short: .zero, long: .milliseconds(3)) == .zero)
    #expect(recover(short: .milliseconds(-2), long: .milliseconds(1)) == .zero)
  }

  @Test func aLongReadingBelowTheShortOneIsIgnored() {
    // Cannot happen with a monotonic clock; the short reading alone decides.
    #expect(recover(short: .microseconds(79_999), long: .milliseconds(50)) == .milliseconds(80))
  }
}
