import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// What the exploration's body throws once the other test's run has finished.
private struct TheOtherRunWentFirst: Error {}

/// Whether the exploration has started, and the test waiting for it to.
private struct Start {
  var started = false
  var waiter: CheckedContinuation<Void, Never>?
}

/// A long exploration shares the process's run lock with the runs of other tests: between its
/// schedules, once it has held the lock for a time slice, it lets the runs waiting for it go first.
@Suite(.timeLimit(.minutes(1)))
struct ExplorationLockSharingTests {
  @Test func theRunOfAnotherTestGoesFirstInsteadOfWaitingForTheWholeExploration() async throws {
    let start = Locked(Start())
    let otherRunDone = Locked(false)
    // Far more schedules than the test waits for: unless the other run gets in between them, the
    // exploration ends only after all of them, and its body never throws.
    async let exploration = collectingIssues {
      await explore(.random(schedules: 200_000, seed: 1)) {
        start.withLock { start in
          start.started = true
          return start.waiter.take()
        }?.resume()
        if otherRunDone.value { throw TheOtherRunWentFirst() }
        await withTaskGroup(of: Void.self) { group in
          group.addTask { await Task.yield() }  // allowed: choice points for the exploration
          group.addTask { await Task.yield() }
        }
      }
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let started = start.withLock { start in
        if !start.started { start.waiter = continuation }
        return start.started
      }
      if started { continuation.resume() }
    }
    // Another test's run, queued behind the exploration that holds the lock.
    try await withDeterministicScheduling {}
    otherRunDone.withLock { $0 = true }
    let (result, issues) = await exploration
    #expect(result.schedulesRun < 200_000, "\(result)")
    #expect(result.failure?.failures.first?.contains("TheOtherRunWentFirst") == true, "\(result)")
    expectOneIssue(issues, containing: "TheOtherRunWentFirst")
  }
}
