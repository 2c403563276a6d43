import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// What the exploration's body throws once the other test's exploration has finished.
private struct TheOtherRunWentFirst: Error {}

/// The other test's exploration did not pass.
private struct ExplorationFailed: Error {
  let description: String
}

/// Whether the exploration has started or is over, and the test waiting for either.
private struct Start {
  var settled = false
  var waiter: CheckedContinuation<Void, Never>?

  /// Marks the exploration started (or over); returns the waiter to resume, outside the lock.
  mutating func settle() -> CheckedContinuation<Void, Never>? {
    settled = true
    return waiter.take()
  }
}

/// A long exploration, and the exploration of another test queued behind it once it has started: far more
/// schedules than the test waits for, so that unless the other run gets in between two of them,
/// the exploration ends only after all of them, and its body never throws.
///
/// The wait for the exploration's start also ends when the exploration ends without starting: its
/// test cancelled while it waited for the exploration lock (a time limit passed behind a long queue of
/// other tests' runs) makes `explore` return without running its body, and a wait that only the
/// body ends would never end — the process would wait for this test for good
/// (``ExplorationLockSharingTests/cancelledBeforeItsExplorationStartsTheTestStillEnds()``). And
/// the exploration's body throws from its next schedule once the other run is over or failed, so
/// that a cancelled test does not wait for all of its schedules.
private func exploreWithAnotherRunQueuedBehind(line: UInt = #line) async -> (
  result: ExplorationResult, issues: [ReportedIssue], otherRunError: (any Error)?
) {
  let start = Locked(Start())
  let otherRunDone = Locked(false)
  async let exploration = collectingIssues {
    let result = await explore(.random(schedules: 200_000, seed: 1), line: line) {
      start.withLock { $0.settle() }?.resume()
      if otherRunDone.value { throw TheOtherRunWentFirst() }
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await Task.yield() }  // allowed: choice points for the exploration
        group.addTask { await Task.yield() }
      }
    }
    // Over, whether or not its body ever ran.
    start.withLock { $0.settle() }?.resume()
    return result
  }
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    let settled = start.withLock { start in
      if !start.settled { start.waiter = continuation }
      return start.settled
    }
    if settled { continuation.resume() }
  }
  var otherRunError: (any Error)?
  // Another test's exploration, queued behind the one that holds the lock.
  let (other, _) = await collectingIssues {
    await explore(.random(schedules: 1, seed: 1)) {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await Task.yield() }  // allowed: choice points for the exploration
        group.addTask {}
      }
    }
  }
  if !other.passed { otherRunError = ExplorationFailed(description: "\(other)") }
  otherRunDone.withLock { $0 = true }
  let (result, issues) = await exploration
  return (result, issues, otherRunError)
}

/// A long exploration shares the process's exploration lock with the explorations of other tests:
/// between its schedules, once it has held the lock for a time slice, it lets the explorations
/// waiting for it go first.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationLockSharingTests {
  @Test func theRunOfAnotherTestGoesFirstInsteadOfWaitingForTheWholeExploration() async throws {
    let (result, issues, otherRunError) = await exploreWithAnotherRunQueuedBehind()
    #expect(otherRunError == nil, "\(String(describing: otherRunError))")
    #expect(result.schedulesRun < 200_000, "\(result)")
    #expect(result.failure?.failures.first?.contains("TheOtherRunWentFirst") == true, "\(result)")
    expectOneIssue(issues, containing: "TheOtherRunWentFirst")
  }

  /// The scenario above, cancelled while its exploration waits for the exploration lock, which this test
  /// holds: the exploration never starts, and the scenario still ends. Before the scenario's wait
  /// also ended with the exploration, it stayed suspended for good here — and the suite under the
  /// thread sanitizer never finished: the test above, cancelled by its time limit while its
  /// exploration waited behind hundreds of runs, was the one test the process still waited for.
  @Test func cancelledBeforeItsExplorationStartsTheTestStillEnds() async throws {
    let holder = CallSite(
      fileID: "Other/Run.swift", filePath: "Other/Run.swift", line: 3, column: 1)
    _ = try await RunSerializer.shared.acquire(for: holder)
    var held = true
    defer { if held { RunSerializer.shared.release() } }
    let ended = Locked(false)
    let line: UInt = #line
    let scenario = Task {
      defer { ended.withLock { $0 = true } }
      return await exploreWithAnotherRunQueuedBehind(line: line)
    }
    try await waitUntil("the exploration is queued for the exploration lock") {
      RunSerializer.shared.waitingSites.contains {
        $0.line == line && "\($0.fileID)".hasSuffix("ExplorationLockSharingTests.swift")
      }
    }
    scenario.cancel()
    RunSerializer.shared.release()
    held = false
    // A failure bound: a scenario that never ends fails this wait (and stays suspended, alone).
    try await waitUntil("the cancelled scenario ended") { ended.value }
    // Its exploration waited for the lock until it was cancelled, and ran nothing.
    let (result, issues, _) = await scenario.value
    #expect(result.schedulesRun == 0, "\(result)")
    expectOneIssue(issues, containing: "was cancelled while its exploration")
  }
}
