import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// An actor that a quarantined run's tasks call, and the test after it.
private actor Pinger {
  var pings = 0
  func ping() { pings += 1 }
}

/// A run that cannot finish quarantines its tasks, but frees the actors whose jobs were ready: a
/// later call to such an actor does not wait forever.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct QuarantinedActorTests {
  @Test func aQuarantineFreesTheActorsWhoseJobsWereReady() async throws {
    let pinger = Pinger()  // this test's own: no other test calls it
    let (result, _) = await collectingIssues {
      // One task spins forever (a livelock, stopped after 61 jobs) while two others call the
      // actor, so that the actor's job is ready when the schedule is stopped.
      await explore(.random(schedules: 1, seed: 3), maxSteps: 61) {
        await withTaskGroup(of: Void.self) { group in
          group.addTask { while true { await Task.yield() } }  // allowed: the livelock
          for _ in 0..<2 {
            group.addTask { for _ in 0..<40 { await pinger.ping() } }
          }
        }
      }
    }
    let failure = try #require(result.failure)
    let message = failure.failures.first ?? ""
    #expect(message.contains("ran 61 jobs without finishing (maxSteps)"), "\(message)")
    #expect(!message.contains("stay busy"), "\(message)")
    // Left busy, the actor would hold this call behind the quarantined job for good.
    let pinged = EventCounter("a call to the actor after the quarantine")
    Task {
      await pinger.ping()
      pinged.record()
    }
    try await pinged.waitForCount(1, timeout: .seconds(30))
  }
}
