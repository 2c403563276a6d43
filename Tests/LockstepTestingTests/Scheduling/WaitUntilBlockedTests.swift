import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// `waitUntilBlocked()`: Go's `synctest.Wait` for a run.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WaitUntilBlockedTests {
  @Test func itReturnsOnceEveryOtherTaskWaitsWithoutMovingTime() async throws {
    let outcome = try await runDeterministically {
      let log = Locked<[String]>([])
      Task {
        for step in 0..<3 {
          log.withLock { $0.append("step \(step)") }
          await Task.yield()  // the subject: work that takes several jobs
        }
      }
      Task {
        try await Task.sleep(for: .seconds(1))
        log.withLock { $0.append("late") }
      }
      try await waitUntilBlocked()
      return log.withLock { $0 }
    }
    #expect(outcome.value == ["step 0", "step 1", "step 2"])
    #expect(!outcome.value.contains("late"), "a sleeper due later has not run")
    // Read from the trace, not the clock: with LOCKSTEP_REAL_NOW=1 the clock is the real one.
    #expect(outcome.trace.steps.allSatisfy { $0.time == .zero }, "virtual time did not move")
  }

  @Test func outsideARunItThrowsAndSaysWhatToUseInstead() async {
    let line = #line + 1  // inside #expect, a default #line is the macro's
    let error = await #expect(throws: NotInDeterministicRun.self) {
      try await waitUntilBlocked()
    }
    #expect(error?.site.line == UInt(line))
    #expect(error?.description.contains("TestTaskFactory.waitUntilIdle()") == true)
  }
}
