import Foundation
import LockstepTestSupport
import LockstepTesting
import Testing

/// A run whose body blocks its thread in a call that does not return until the test lets it go,
/// and that a run cannot park (a condition variable's wait; a semaphore's is parked, see
/// `ParkedJobsTests`): returns what the run threw, if anything.
private func blockingRun(
  _ release: ReleaseLatch, started: Gate, gracePeriod: Duration
) async -> (any Error)? {
  do {
    try await withDeterministicScheduling(timeout: .milliseconds(200), gracePeriod: gracePeriod) {
      started.open()
      release.wait()  // the blocking call under test, not a sleep: the test releases it
    }
    return nil
  } catch {
    return error
  }
}

/// A latch on a condition variable: a wait Lockstep does not see.
private final class ReleaseLatch: @unchecked Sendable {
  private let condition = NSCondition()
  private var isOpen = false

  func wait() {
    condition.lock()
    while !isOpen { condition.wait() }
    condition.unlock()
  }

  func open() {
    condition.lock()
    isOpen = true
    condition.broadcast()
    condition.unlock()
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunWatchdogTests {
  /// A run blocked on its caller's thread, and one blocked on Lockstep's drain thread (a grace
  /// period moves a run there): each is failed once its bound has passed, and the run of another
  /// test queued behind it goes on — on a fresh drain thread where the old one is blocked.
  @Test(arguments: [Duration.zero, .milliseconds(1)])
  func aRunWhoseThreadBlocksFailsAndTheNextRunGoesOn(gracePeriod: Duration) async throws {
    let release = ReleaseLatch()
    let started = Gate()
    let ((blockedError, laterRunError), issues) = await collectingIssues {
      async let blocked = blockingRun(release, started: started, gracePeriod: gracePeriod)
      try? await started.wait()
      // Another test's run, queued behind the blocked one: it gets the run lock only if the
      // watchdog hands it on; with a grace period it needs the drain thread too.
      var laterRunError: (any Error)?
      do {
        try await withDeterministicScheduling(gracePeriod: gracePeriod) {}
      } catch {
        laterRunError = error
      }
      // Lets the blocked thread go, so that no thread of the test process stays blocked (and a
      // broken watchdog ends this test with a failure, not a hang).
      release.open()
      return (await blocked, laterRunError)
    }
    #expect(laterRunError == nil, "\(String(describing: laterRunError))")
    let error = try #require(blockedError as? WaitTimeoutError)
    #expect("\(error)".contains("never returned from its job"), "\(error)")
    let issue = try #require(issues.first)
    #expect(issue.message.contains("never returned from its job"), "\(issue)")
    #expect(issues.count == 1, "\(issues)")
  }
}
