/// Runs `body` many times on the normal executors — not on the deterministic scheduler — and
/// reports how many runs failed: a measure of how flaky a test is, before and after a fix.
///
/// Deterministic tests are for regressions; many randomized runs are for discovery. `stress`
/// repeats an ordinary test body (real threads, the real cooperative pool, real actor hops), one
/// run after another, and reports, once, at this call:
///
/// ```
/// stress: 3 of 1,000 runs failed (0.3 %) on the normal executors; first failure, in run 17:
///   - Expectation failed: (book → "Book 1") == ("Book \(newest)" → "Book 2") (at ReaderTests.swift:31:5)
/// ```
///
/// ```swift
/// @Test(.timeLimit(.minutes(1)))
/// func theNewestReloadWinsOnTheRealExecutors() async {
///   await stress(times: 200) {
///     let model = await ReaderModel()
///     async let first: Void = model.reload(1)
///     async let second: Void = model.reload(2)
///     _ = await (first, second)
///     #expect(await model.book == "Book \(await model.newest)")
///   }
/// }
/// ```
///
/// The count is `times`, unless the test process has `LOCKSTEP_STRESS_COUNT` in its environment:
/// then every `stress` call runs that many times, and prints its result even when every run
/// passed, so that a team can measure without editing the test:
///
/// ```sh
/// LOCKSTEP_STRESS_COUNT=10000 swift test --filter theNewestReloadWinsOnTheRealExecutors
/// ```
///
/// A run fails when its body records an issue (`#expect`, `Issue.record`, `XCTAssert…`, a
/// Lockstep report) or throws. Under Swift Testing, the failures of the runs are held back (listed
/// as known issues) and the one report fails the test; under XCTest they are reported as they
/// happen as well — XCTest cannot hold them back. The runs do not overlap; a body that hangs
/// hangs the call (give the test a time limit). Misuse is reported at this call and nothing runs:
/// `times` below 1, a `LOCKSTEP_STRESS_COUNT` that is not a whole number of 1 or more, or a call
/// inside a deterministic run (where every run would be the same; to try many orders there, use
/// ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)``).
///
/// - Parameters:
///   - times: How many times to run the body; at least 1. `LOCKSTEP_STRESS_COUNT` replaces it.
///   - fileID: The caller's file ID, where the result is reported; leave the default.
///   - filePath: The caller's file path; leave the default.
///   - line: The caller's line; leave the default.
///   - column: The caller's column; leave the default.
///   - body: One run of the test: an ordinary, non-escaping closure that runs in your isolation.
/// - Returns: How many runs failed, out of how many, and the first failure.
@discardableResult
public nonisolated(nonsending) func stress(
  times: Int = 100, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Void
) async -> StressResult {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  let environment = StressCount.current
  var problems: [String] = []
  if times < 1 { problems.append("times: \(times) must be at least 1") }
  if let problem = environment.problem { problems.append(problem) }
  if CurrentRun.isActive {
    problems.append(
      "it cannot run inside a deterministic run: it repeats the body on the normal executors, and "
        + "under the scheduler every run would be the same. Call it from a test that is not under "
        + "the .deterministic trait or withDeterministicScheduling, or use explore to try many "
        + "orders")
  }
  guard problems.isEmpty else {
    reportIssue("stress: \(problems.joined(separator: "; ")). Nothing ran.", at: site)
    return StressResult(runs: 0, failedRuns: 0, firstFailure: nil, countSource: nil)
  }
  let runs = environment.count ?? times
  let source = environment.count.map { "\(StressCount.variable)=\($0)" }
  var failed = 0
  var first: (run: Int, failures: [String])?
  await FailureCapture.capturing { capture in
    for run in 1...runs {
      let mark = capture.mark
      var thrown: (any Error)?
      do { try await body() } catch { thrown = error }
      var failures = capture.failures(since: mark).map(\.message)
      if let thrown { failures.append("The body threw \(thrown)") }
      guard !failures.isEmpty else { continue }
      failed += 1
      if first == nil { first = (run, failures) }
    }
  }
  let result = StressResult(runs: runs, failedRuns: failed, firstFailure: first, countSource: source)
  if failed > 0 {
    reportIssue(result.description, at: site)
  } else if source != nil {
    print("\(site): \(result)")
  }
  return result
}
