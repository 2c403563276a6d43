import Foundation
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

@testable import LockstepTesting

/// A run that failed on purpose.
private struct Flaked: Error, CustomStringConvertible {
  let run: Int
  var description: String { "flaked in run \(run)" }
}

/// Runs `body` as if the process had started with `LOCKSTEP_STRESS_COUNT=value`.
private func withStressCount<T>(
  _ value: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async rethrows -> T {
  try await StressCount.$override.withValue(StressCount([StressCount.variable: value])) { try await body() }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct StressTests {
  @Test func itCountsTheRunsThatFailAndReportsTheRateOnceWithTheFirstFailure() async {
    let runs = EventCounter("runs")
    let line = #line + 2
    let (result, issues) = await collectingIssues {
      await stress(times: 12) {
        runs.record()
        if runs.count % 4 == 0 { throw Flaked(run: runs.count) }
      }
    }
    #expect(runs.count == 12)
    #expect(result.runs == 12 && result.failedRuns == 3 && result.failureRate == 0.25)
    #expect(result.firstFailure?.run == 4)
    #expect(
      result.firstFailure?.failures == ["The body threw an error of type Flaked: flaked in run 4"],
      "\(result)")
    #expect(issues.count == 1)
    #expect(issues.first?.site.line == UInt(line))
    let report = issues.first?.message ?? ""
    #expect(
      report.hasPrefix(
        "stress: 3 of 12 runs failed (25 %) on the normal executors; first failure, in run 4:"),
      "\(report)")
    #expect(report.contains("flaked in run 4"), "\(report)")
  }

  @Test func aFailedExpectationFailsItsRun() async {
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues {
      await stress(times: 3) {
        runs.record()
        // The one known issue of this suite, on purpose: stress holds a failed `#expect` of a run
        // back as a known issue and reports the runs once; this test's subject is that path.
        #expect(runs.count != 2, "run \(runs.count) flaked")
      }
    }
    #expect(result.runs == 3 && result.failedRuns == 1 && result.firstFailure?.run == 2)
    #expect(result.firstFailure?.failures.count == 1)
    #expect(result.firstFailure?.failures.first?.contains("run 2 flaked") == true, "\(result)")
    expectOneIssue(issues, containing: "stress: 1 of 3 runs failed", "run 2 flaked")
  }

  @Test func aThrownErrorFailsTheRun() async {
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues {
      await stress(times: 10) {
        runs.record()
        if runs.count == 7 { throw Flaked(run: 7) }
      }
    }
    #expect(result.failedRuns == 1 && result.firstFailure?.run == 7)
    #expect(result.failureRate == 0.1)
    #expect(result.firstFailure?.failures == ["The body threw an error of type Flaked: flaked in run 7"])
    #expect(issues.map(\.message) == [result.description])
  }

  @Test func whenEveryRunPassesNothingIsReported() async {
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues { await stress(times: 50) { runs.record() } }
    #expect(runs.count == 50, "the body ran once a run")
    #expect(issues.isEmpty)
    #expect(result.runs == 50 && result.failedRuns == 0 && result.firstFailure == nil)
    #expect(result.failureRate == 0)
    #expect(result.description == "stress: all 50 runs passed on the normal executors")
  }

  @Test func theBodyRunsOnTheNormalExecutorsNotTheScheduler() async {
    let onScheduler = EventCounter("runs on the scheduler")
    await stress(times: 5) {
      if CurrentRun.isActive { onScheduler.record() }
      let child = Task.detached { CurrentRun.isActive }
      if await child.value { onScheduler.record() }
    }
    #expect(onScheduler.count == 0)
  }

  @Test func theCountFromTheEnvironmentReplacesTimes() async {
    let runs = EventCounter("runs")
    let result = await withStressCount("30") { await stress(times: 5) { runs.record() } }
    #expect(runs.count == 30 && result.runs == 30)
    #expect(
      result.description == "stress: all 30 runs passed on the normal executors (LOCKSTEP_STRESS_COUNT=30)")
  }

  @Test(arguments: ["many", "0", "-5", "2.5"])
  func aBadCountInTheEnvironmentIsReportedAndNothingRuns(_ value: String) async {
    let runs = EventCounter("runs")
    let (result, issues) = await withStressCount(value) {
      await collectingIssues { await stress(times: 5) { runs.record() } }
    }
    #expect(runs.count == 0 && result.runs == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("LOCKSTEP_STRESS_COUNT=\(value) is not a whole number") == true)
  }

  @Test func timesBelowOneIsReportedAndNothingRuns() async {
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues { await stress(times: 0) { runs.record() } }
    #expect(runs.count == 0 && result.runs == 0)
    #expect(result.failureRate == 0, "no run, no failure rate")
    #expect(issues.map(\.message) == ["stress: times: 0 must be at least 1. Nothing ran."])
  }

  @Test(.deterministic()) func insideADeterministicRunItIsReportedAndNothingRuns() async {
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues { await stress(times: 5) { runs.record() } }
    #expect(runs.count == 0 && result.runs == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("cannot run inside a deterministic run") == true)
  }

  @Test func ratesAndCountsReadLikeNumbers() {
    #expect(StressResult.percent(0.003) == "0.3 %")
    #expect(StressResult.percent(0.25) == "25 %")
    #expect(StressResult.percent(1) == "100 %")
    #expect(StressResult.percent(0.0001) == "0.01 %")
    #expect(StressResult.percent(0.012) == "1.2 %")
    #expect(1_000.grouped == "1,000" && 12_345_678.grouped == "12,345,678" && 999.grouped == "999")
  }
}

final class StressXCTests: XCTestCase {
  func testItCountsTheRunsThatFail() async {
    let runs = EventCounter("runs")
    let (result, issues) = await collectingIssues {
      await stress(times: 20) {
        runs.record()
        if runs.count % 5 == 0 { throw Flaked(run: runs.count) }
      }
    }
    XCTAssertEqual(result.runs, 20)
    XCTAssertEqual(result.failedRuns, 4)
    XCTAssertEqual(result.firstFailure?.run, 5)
    XCTAssertEqual(issues.count, 1)
    XCTAssertTrue(
      issues.first?.message.hasPrefix("stress: 4 of 20 runs failed (20 %) on the normal executors") == true,
      issues.first?.message ?? "")
  }

  func testTheCountFromTheEnvironmentReplacesTimes() async {
    let result = await withStressCount("7") { await stress(times: 3) {} }
    XCTAssertEqual(result.runs, 7)
    XCTAssertEqual(result.failedRuns, 0)
  }
}
