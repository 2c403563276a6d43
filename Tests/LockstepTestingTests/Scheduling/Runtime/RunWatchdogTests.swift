import Foundation
import LockstepTestSupport
import Testing

@testable import LockstepTesting

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

/// Waits until the watchdog has given the blocked run up (at its bound: a failure bound, not a
/// delay), then lets the blocked thread go, so that no thread of the test process stays blocked —
/// and a broken watchdog ends the test with a failure, not a hang.
private func waitForTheWatchdog(_ collector: IssueCollector, thenRelease release: ReleaseLatch)
  async throws
{
  var givenUp: Result<Void, any Error> = .success(())
  do {
    try await waitUntil("the watchdog has given the blocked run up") {
      collector.issues.withLock { $0.contains { $0.message.contains("never returned from its job") } }
    }
  } catch {
    givenUp = .failure(error)
  }
  release.open()
  try givenUp.get()
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
  /// A run blocked on its caller's thread, and one blocked on a drain thread of its own (a grace
  /// period moves a run there): each is failed once its bound has passed, while the run of another
  /// test goes on beside it.
  @Test(arguments: [Duration.zero, .milliseconds(1)])
  func aRunWhoseThreadBlocksFailsAndAnotherRunGoesOnBesideIt(gracePeriod: Duration) async throws {
    let release = ReleaseLatch()
    let started = Gate()
    let collector = IssueCollector()
    let (blockedError, laterRunError) = try await IssueRouting.$collector.withValue(collector) {
      async let blocked = blockingRun(release, started: started, gracePeriod: gracePeriod)
      try? await started.wait()
      // Another test's run while the first is blocked: runs proceed side by side.
      var laterRunError: (any Error)?
      do {
        try await withDeterministicScheduling(gracePeriod: gracePeriod) {}
      } catch {
        laterRunError = error
      }
      try await waitForTheWatchdog(collector, thenRelease: release)
      return (await blocked, laterRunError)
    }
    let issues = collector.issues.value
    #expect(laterRunError == nil, "\(String(describing: laterRunError))")
    let error = try #require(blockedError as? WaitTimeoutError)
    #expect("\(error)".contains("never returned from its job"), "\(error)")
    let issue = try #require(issues.first)
    #expect(issue.message.contains("never returned from its job"), "\(issue)")
    #expect(issues.count == 1, "\(issues)")
  }
}

/// An actor several tests share, as an app's singleton is.
private actor SharedStore {
  func hold(_ latch: ReleaseLatch, entered: Gate) {
    entered.open()
    latch.wait()  // the blocking call under test: the test releases it
  }

  func touch() {}
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct BlockedRunActorTests {
  /// A run whose job blocks inside an actor that another test calls: once the watchdog has given
  /// the run up and the job returns, the actor's next job runs, and the other test's call goes on.
  @Test func anActorABlockedJobLeavesServesAnotherTestOnceTheJobReturns() async throws {
    let store = SharedStore()
    let release = ReleaseLatch()
    let entered = Gate()
    let collector = IssueCollector()
    let called = EventCounter("another test's call to the shared actor")
    try await IssueRouting.$collector.withValue(collector) {
      async let blocked: (any Error)? = {
        do {
          try await withDeterministicScheduling(timeout: .milliseconds(200)) {
            await store.hold(release, entered: entered)
          }
          return nil
        } catch {
          return error
        }
      }()
      try? await entered.wait()
      // Another test's call, queued on the actor the blocked job holds.
      Task.detached {
        await store.touch()
        called.record()
      }
      try await waitForTheWatchdog(collector, thenRelease: release)
      #expect(await blocked is WaitTimeoutError)
    }
    try await called.waitForCount(1)
  }
}
