import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// What each main-actor sleeper read from the clock right after its `sleep` returned.
@MainActor private final class Readings {
  var late: [(deadline: Duration, read: Duration)] = []
  var count = 0

  func record(deadline: Duration, read: Duration) {
    count += 1
    if read != deadline { late.append((deadline, read)) }
  }
}

/// `count` main-actor tasks, each sleeping on `clock` until its own deadline (1…`count` ms) and
/// reading `clock.now` as its next statement.
@MainActor private func mainActorSleepers(_ count: Int, on clock: TestClock, into readings: Readings)
  -> [Task<Void, any Error>]
{
  (1...count).map { index in
    Task { @MainActor in
      let deadline = Duration.milliseconds(index)
      try await clock.sleep(until: .zero.advanced(by: deadline))
      readings.record(deadline: deadline, read: clock.now.offset)
    }
  }
}

/// Runs `clock` until its `count` sleepers are woken and waits for their tasks. Should `run()` give
/// up before (its bound reached on a starved machine), the sleepers left are cancelled, so that the
/// test fails instead of waiting for them forever.
private func wakeAll(
  _ count: Int, on clock: TestClock, _ tasks: [Task<Void, any Error>],
  isolation: isolated (any Actor)? = #isolation
) async throws {
  let woken = await clock.run()
  #expect(woken == count)
  if woken < count { for task in tasks { task.cancel() } }
  for task in tasks { try await task.value }
}

/// A sleeper that calls `sleep` on a `TestClock` resumes on its own actor, and its next statements
/// run there before the clock wakes the next sleeper or lets the advance go on — so a woken
/// sleeper reads its own deadline from `now`, whether the test shares its actor or not.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TestClockIsolationTests {
  @MainActor @Test func mainActorSleepersOfAMainActorTestReadTheirOwnDeadline() async throws {
    let clock = TestClock()
    let readings = Readings()
    let tasks = mainActorSleepers(200, on: clock, into: readings)
    try await clock.waitForSleepers(count: 200)
    try await wakeAll(200, on: clock, tasks)
    #expect(readings.count == 200)
    let late = readings.late
    #expect(late.count == 0, "read a later time than their deadline: \(late.prefix(3)) …")
  }

  @Test func mainActorSleepersOfANonisolatedTestReadTheirOwnDeadline() async throws {
    let clock = TestClock()
    let readings = Readings()
    let tasks = await mainActorSleepers(1_000, on: clock, into: readings)
    try await clock.waitForSleepers(count: 1_000)
    try await wakeAll(1_000, on: clock, tasks)
    let (count, late) = await (readings.count, readings.late)
    #expect(count == 1_000)
    #expect(late.count == 0, "read a later time than their deadline: \(late.prefix(3)) …")
  }
}
