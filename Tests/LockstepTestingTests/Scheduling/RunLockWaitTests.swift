import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Runs never overlap in a process: a run that waits long for another test's run says so, and a
/// test cancelled while its run waits fails saying what it waited for.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunLockWaitTests {
  @Test func aTestCancelledWhileItsRunWaitsForTheRunLockSaysSo() async throws {
    let holder = CallSite(
      fileID: "Other/Exploration.swift", filePath: "Other/Exploration.swift", line: 7, column: 1)
    _ = try await RunSerializer.shared.acquire(for: holder)
    let waiting = Task { try await withDeterministicScheduling {} }
    try await waitUntil("the run is queued for the run lock") { RunSerializer.shared.waitingRuns >= 1 }
    waiting.cancel()
    let error = await #expect(throws: RunLockWaitCancelled.self) { try await waiting.value }
    RunSerializer.shared.release()
    let text = error.map { "\($0)" } ?? ""
    #expect(text.contains("waited"))
    #expect(text.contains("for the process's run lock, behind"))
    #expect(text.contains("started at Other/Exploration.swift:7"))
    #expect(text.contains(".serialized"))
  }

  @Test func aRunThatWaitedLongSaysHowLongAndBehindHowMany() {
    let site = CallSite(fileID: "Tests/A.swift", filePath: "Tests/A.swift", line: 3, column: 5)
    let long = RunLockWait(waited: .milliseconds(12_345), runsAhead: 4)
    #expect(
      long.warning(at: site)?.hasPrefix(
        "The deterministic run started at Tests/A.swift:3:5 waited 12.345 s for the process's run "
          + "lock, behind 4 run(s) of other tests") == true)
    #expect(RunLockWait(waited: .seconds(9), runsAhead: 1).warning(at: site) == nil)
  }
}
