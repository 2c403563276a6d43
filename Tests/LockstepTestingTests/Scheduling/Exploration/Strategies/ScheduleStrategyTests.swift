import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Runs a strategy against the simulated tasks (two tasks of two jobs each unless told otherwise),
/// reporting `waits` Lockstep waits for every schedule; returns each planned schedule's
/// cancellation point and order, and how the strategy ended.
private func drive(
  _ strategy: ExplorationStrategy, cancellation: Bool = false, waits: Int = 0, tasks: Int = 2,
  jobs: Int = 2
) -> (schedules: [(cancelAt: Int?, order: [Int])], end: StrategyStep) {
  var schedules = strategy.makeScheduleStrategy(injectsCancellation: cancellation)
  var step = schedules.next(after: nil)
  var ran: [(Int?, [Int])] = []
  while case .run(var planned) = step {
    let order = simulateTasks(&planned.picker, tasks: tasks, jobs: jobs)
    ran.append((planned.cancelAtWait, order))
    let diverged = (planned.picker as? GuidedPicker)?.diverged ?? false
    step = schedules.next(
      after: ScheduleReport(record: planned.picker.record, waits: waits, diverged: diverged))
  }
  return (ran, step)
}

private func complete(_ step: StrategyStep) -> Bool? {
  guard case .done(let complete, _) = step else { return nil }
  return complete
}

private func misuse(_ step: StrategyStep) -> String? {
  guard case .done(_, let misuse) = step else { return nil }
  return misuse
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ScheduleStrategyTests {
  @Test func randomRunsItsSchedulesReproduciblyFromTheSeed() {
    let first = drive(.random(schedules: 30, seed: 7))
    let again = drive(.random(schedules: 30, seed: 7))
    #expect(first.schedules.count == 30 && complete(first.end) == true)
    #expect(first.schedules.map(\.order) == again.schedules.map(\.order))
    #expect(Set(first.schedules.map(\.order)).count > 1)
    #expect(drive(.random(schedules: 30, seed: 8)).schedules.map(\.order) != first.schedules.map(\.order))
  }

  @Test func seededStrategiesCancelOnlyOnceWaitsAreKnownAndInAboutHalfTheSchedules() throws {
    for strategy in [ExplorationStrategy.random(schedules: 400, seed: 3), .pct(schedules: 400, seed: 3)] {
      let (schedules, _) = drive(strategy, cancellation: true, waits: 3)
      let first = try #require(schedules.first)
      #expect(first.cancelAt == nil, "no wait is known before the first schedule")
      let cancelled = schedules.compactMap(\.cancelAt)
      #expect(cancelled.allSatisfy { (0..<3).contains($0) })
      #expect(Set(cancelled) == [0, 1, 2])
      #expect((150...250).contains(cancelled.count), "\(cancelled.count) of 400")
      #expect(drive(strategy, cancellation: false, waits: 3).schedules.allSatisfy { $0.cancelAt == nil })
      #expect(drive(strategy, cancellation: true, waits: 0).schedules.allSatisfy { $0.cancelAt == nil })
    }
  }

  @Test func exhaustiveRepeatsTheSearchWithACancellationAtEachWait() {
    let plain = drive(.exhaustive(maxPreemptions: 0), waits: 2)
    #expect(plain.schedules.map(\.order) == [[1, 1, 2, 2], [2, 2, 1, 1]])
    #expect(plain.schedules.allSatisfy { $0.cancelAt == nil } && complete(plain.end) == true)

    let cancelling = drive(.exhaustive(maxPreemptions: 0), cancellation: true, waits: 2)
    #expect(cancelling.schedules.map(\.cancelAt) == [nil, nil, 0, 0, 1, 1])
    #expect(complete(cancelling.end) == true)
  }

  @Test func exhaustiveStopsAtItsLimitAndSaysItIsIncomplete() {
    let limited = drive(.exhaustive(maxPreemptions: 2, limit: 3))
    #expect(limited.schedules.count == 3)
    #expect(complete(limited.end) == false)
  }

  @Test func aReplayRunsItsTokenOnceCheckingWhatTheTokenRecorded() {
    let token = ReplayToken(choices: [1, 0, 0], cancelAtWait: nil)
    let fits = drive(.replay(token))
    #expect(fits.schedules.map(\.order) == [[2, 1, 1, 2]])
    #expect(complete(fits.end) == true && misuse(fits.end) == nil)
    var strategy = ExplorationStrategy.replay(token).makeScheduleStrategy(injectsCancellation: false)
    guard case .run(let planned) = strategy.next(after: nil) else {
      Issue.record("a replay runs its schedule")
      return
    }
    #expect(planned.replaying == token, "the explorer checks the run against the token")

    let notAToken = drive(.replay("not a token"))
    #expect(notAToken.schedules.isEmpty)
    #expect(complete(notAToken.end) == false)
    #expect(misuse(notAToken.end)?.contains("is not a replay token") == true)
    #expect(
      !ExplorationStrategy.replay(token).makeScheduleStrategy(injectsCancellation: false).shrinksFailures)
  }
}
