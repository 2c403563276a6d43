import LockstepTestSupport
import LockstepTesting
import Testing

/// A deterministic run, or an exploration, started inside a deterministic run.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct NestedRunTests {
  @Test func aRunInsideARunThrowsAndSaysWhy() async throws {
    let inner = EventCounter("inner body runs")
    let line: UInt = #line + 1  // inside #expect, the call site is the macro's line
    let error = await #expect(throws: NestedDeterministicRun.self) {
      try await withDeterministicScheduling {
        try await withDeterministicScheduling { inner.record() }
      }
    }
    #expect(error?.outerRun.fileID.description == "LockstepTestingTests/NestedRunTests.swift")
    #expect(error?.outerRun.line == line, "where the outer run was started")
    #expect(error.map { $0.description.contains("\($0.outerRun)") } == true)
    #expect(error?.description.contains("inside another deterministic run") == true)
    #expect(inner.count == 0)
  }

  @Test func exploreInsideARunIsReportedAndRunsNothing() async throws {
    let ran = EventCounter("explored body runs")
    let line: UInt = #line + 1
    let (result, issues) = try await withDeterministicScheduling {
      await collectingIssues {
        await explore(.random(schedules: 5, seed: 1)) { ran.record() }
      }
    }
    #expect(result.schedulesRun == 0)
    #expect(result.failure == nil && !result.isComplete)
    #expect(ran.count == 0)
    let issue = expectOneIssue(
      issues, containing: "cannot run inside another deterministic run", "Nothing ran",
      "(the one started at LockstepTestingTests/NestedRunTests.swift:\(line):")
    #expect(issue?.site.line == line + 2)
  }
}
