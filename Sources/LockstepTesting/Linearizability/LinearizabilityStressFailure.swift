/// A scenario that failed under
/// ``checkLinearizability(_:scenarios:condition:timeout:fileID:filePath:line:column:of:operations:invariant:)``
/// in stress mode: the calls and results of its first failing run, shrunk to the smallest scenario
/// that still fails, and how many of its runs failed.
///
/// It has no timeline and no replay token: the runs were on real threads, which Lockstep neither
/// watches nor steers.
///
/// ```swift
/// let result = await checkLinearizability(.stress(runs: 2_000), of: { Seats() }, operations: operations)
/// if let failure = result.failure {
///   print(failure.calls)                            // a column a task, each call with its result
///   print(failure.failedRuns, "of", failure.runs)   // how often the scenario failed
/// }
/// ```
public struct LinearizabilityStressFailure: Sendable, CustomStringConvertible {
  /// The scenario that failed first, from 1.
  public let scenario: Int
  /// How many scenarios the check was to run.
  let scenarioCount: Int
  /// Whether the results were ones no order of the calls gives (rather than an invariant that
  /// failed, a thrown error, or a run that did not finish).
  public let isNotLinearizable: Bool
  /// The calls of the reported scenario's first failing run, each with its result, as the report
  /// prints them.
  public let calls: String
  /// What failed in that run, as the report lists it.
  public let failures: [String]
  /// How many times the reported scenario ran.
  public let runs: Int
  /// How many of those runs failed.
  public let failedRuns: Int
  /// Whether a run did not finish within the timeout: the check stopped at it, leaving its tasks
  /// running.
  public let didNotFinish: Bool
  /// The size of the scenario that failed first: `3 tasks × 2–3 calls, 1 before`.
  public let foundSize: String
  /// The size of the reported scenario.
  public let size: String
  /// How many runs of the scenario that failed first failed, and out of how many.
  package let foundFailedRuns: Int
  package let foundRuns: Int
  /// How many smaller scenarios shrinking ran.
  public let smallerScenariosTried: Int
  /// The mode, as the report names it.
  let title: String

  /// ``failedRuns`` divided by ``runs``.
  public var failureRate: Double { runs == 0 ? 0 : Double(failedRuns) / Double(runs) }

  /// The report's first line.
  var headline: String {
    let place = "scenario \(scenario) of \(scenarioCount), \(title) on real threads"
    if isNotLinearizable {
      return "checkLinearizability found results that no order of the calls gives (\(place))."
    }
    if didNotFinish { return "checkLinearizability found a run that did not finish (\(place))." }
    return "checkLinearizability found a failing run (\(place))."
  }

  /// `it failed in 45 of 500 runs (9 %)`.
  private static func count(_ failed: Int, of runs: Int) -> String {
    let rate = StressResult.percent(runs == 0 ? 0 : Double(failed) / Double(runs))
    return "it failed in \(failed.grouped) of \(runs.grouped) runs (\(rate))"
  }

  /// The whole report, as the check records it.
  public var description: String {
    var lines = [headline, "What failed, in the first run that failed:"]
    lines += failures.map { "  - " + $0.replacingNewlines(with: "\n    ") }
    var count = "Stress runs on real threads: no timeline or replay token; "
    count += Self.count(failedRuns, of: runs)
    if didNotFinish { count += ", the last of which did not finish" }
    lines.append(count + ".")
    if foundSize != size {
      lines.append(
        "Shrunk from \(foundSize) (\(foundFailedRuns.grouped) of \(foundRuns.grouped) runs failed) "
          + "to \(size) (\(smallerScenariosTried) smaller scenario(s) tried, \(foundRuns.grouped) runs "
          + "each).")
    }
    return lines.joined(separator: "\n")
  }
}
