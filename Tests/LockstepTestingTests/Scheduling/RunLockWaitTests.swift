import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Explorations take turns in a process: one that waits long for another test's exploration says
/// so, and a test cancelled while its exploration waits fails saying what it waited for.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunLockWaitTests {
  @Test func aTestCancelledWhileItsExplorationWaitsForTheLockSaysSo() async throws {
    let holder = CallSite(
      fileID: "Other/Exploration.swift", filePath: "Other/Exploration.swift", line: 7, column: 1)
    _ = try await RunSerializer.shared.acquire(for: holder)
    let waiting = Task {
      await collectingIssues { await explore(.random(schedules: 2, seed: 1)) { await Task.yield() } }
    }
    try await waitUntil("the exploration is queued for the lock") { RunSerializer.shared.waitingRuns >= 1 }
    // A plain run goes on meanwhile: only explorations take turns.
    try await withDeterministicScheduling { await Task.yield() }
    waiting.cancel()
    let (result, issues) = await waiting.value
    RunSerializer.shared.release()
    #expect(result.schedulesRun == 0)
    let text = result.problem ?? ""
    #expect(text.contains("waited"), "\(text)")
    #expect(text.contains("for the process's exploration lock, behind"), "\(text)")
    #expect(text.contains("started at Other/Exploration.swift:7"), "\(text)")
    #expect(text.contains("lockstep-explore"), "\(text)")
    #expect(issues.contains { $0.message.contains("exploration lock") }, "\(issues)")
  }

  @Test func aRunThatWaitedLongSaysHowLongAndBehindHowMany() {
    let site = CallSite(fileID: "Tests/A.swift", filePath: "Tests/A.swift", line: 3, column: 5)
    let long = RunLockWait(waited: .milliseconds(12_345), runsAhead: 4)
    #expect(
      long.warning(at: site)?.hasPrefix(
        "The exploration started at Tests/A.swift:3:5 waited 12.345 s for the process's "
          + "exploration lock, behind 4 exploration(s) of other tests") == true)
    #expect(RunLockWait(waited: .seconds(9), runsAhead: 1).warning(at: site) == nil)
  }
}
