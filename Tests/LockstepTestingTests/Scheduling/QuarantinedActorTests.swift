import Testing

@testable import LockstepTesting

/// An actor of one schedule.
private actor Pinger {
  var pings = 0
  func ping() { pings += 1 }
}

/// A run that cannot finish quarantines its tasks; an actor whose job was ready then stays busy
/// for good, and the report says so.
@Suite(.timeLimit(.minutes(1)))
struct QuarantinedActorTests {
  @Test func aQuarantineThatHoldsAnActorsJobSaysSo() async throws {
    let (result, _) = await collectingIssues {
      // One task spins forever (a livelock, stopped after 61 jobs) while two others call one
      // actor, so that the actor's job is ready when the schedule is stopped.
      await explore(.random(schedules: 1, seed: 3), maxSteps: 61) {
        let pinger = Pinger()  // this schedule's own: no other test calls it
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
    #expect(
      message.contains("and so are 1 actor job(s) that were ready: those actors stay busy"), "\(message)")
  }
}
