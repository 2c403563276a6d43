/// Runs `body` many times on the normal executors — not on the deterministic scheduler — and
/// reports, once, at this call how many runs failed: a measure of how flaky a test is.
///
/// ```swift
/// @Test(.timeLimit(.minutes(1)))
/// func theNewestReloadWinsOnTheRealExecutors() async {
///   await stress(times: 200) { await twoReloads() }
/// }
/// ```
///
/// `LOCKSTEP_STRESS_COUNT` replaces `times` for every call and prints each result; what counts
/// as a failed run and what is a misuse: <doc:FindingRaces#Measure-a-flaky-test-on-the-real-executors>.
///
/// `body` is one run of the test: an ordinary, non-escaping closure that runs in your isolation.
///
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
  var progress = ProgressReporter(subject: "stress at \(site.fileID):\(site.line)")
  await FailureCapture.capturing { capture in
    for run in 1...runs {
      progress.tick { .init(done: run - 1, of: runs, unit: "run", failures: failed) }
      let mark = capture.mark
      var thrown: (any Error)?
      do { try await body() } catch { thrown = error }
      var failures = capture.failures(since: mark).map(\.message)
      if let thrown { failures.append(bodyThrewText(thrown)) }
      guard !failures.isEmpty else { continue }
      failed += 1
      if first == nil { first = (run, failures) }
    }
  }
  progress.finish(.init(done: runs, of: runs, unit: "run", failures: failed))
  let result = StressResult(runs: runs, failedRuns: failed, firstFailure: first, countSource: source)
  if failed > 0 {
    reportIssue(result.description, at: site)
  } else if source != nil {
    print("\(site): \(result)")
  }
  return result
}
