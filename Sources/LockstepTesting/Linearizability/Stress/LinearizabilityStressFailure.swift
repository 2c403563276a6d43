/// A scenario that failed under
/// ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``
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
///   print(failure.failedOverlappingRuns, "of", failure.overlappingRuns)   // how often it failed
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
  /// How many of those runs overlapped: two of their tasks had calls in flight at the same moment.
  public let overlappingRuns: Int
  /// How many overlapping runs the check asked for: it stops at as many, unless a run fails to
  /// finish or it runs out of attempts or time first (see ``shortfall``).
  public let runsAsked: Int
  /// How many of the runs failed, overlapping or not.
  public let failedRuns: Int
  /// How many of the overlapping runs failed.
  public let failedOverlappingRuns: Int
  /// Why the reported scenario stopped before ``runsAsked`` of its runs overlapped, or `nil`.
  public let shortfall: String?
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

  /// ``failedOverlappingRuns`` divided by ``overlappingRuns``.
  public var failureRate: Double {
    overlappingRuns == 0 ? 0 : Double(failedOverlappingRuns) / Double(overlappingRuns)
  }

  /// The report's first line.
  var headline: String {
    let place = "scenario \(scenario) of \(scenarioCount), \(title) on real threads"
    if isNotLinearizable {
      return "checkLinearizability found results that no order of the calls gives (\(place))."
    }
    if didNotFinish { return "checkLinearizability found a run that did not finish (\(place))." }
    return "checkLinearizability found a failing run (\(place))."
  }

  /// `10,412 runs made, 10,000 overlapped; it failed in 170 of those (1.7 %)`, and the runs
  /// that did not overlap if any failed.
  private var count: String {
    let rate = StressResult.percent(failureRate)
    var text =
      "\(runs.grouped) \(runs == 1 ? "run" : "runs") made, \(overlappingRuns.grouped) overlapped; "
      + "it failed in \(failedOverlappingRuns.grouped) of those (\(rate))"
    let others = runs - overlappingRuns
    let failedOthers = failedRuns - failedOverlappingRuns
    if others > 0 {
      text += " and in \(failedOthers.grouped) of the \(others.grouped) that did not overlap"
    }
    return text
  }

  /// The whole report, as the check records it.
  public var description: String {
    var lines = [headline, "What failed, in the first run that failed:"]
    lines += failures.map { "  - " + $0.replacingNewlines(with: "\n    ") }
    var count = "Stress runs on real threads: no timeline or replay token; " + self.count
    if didNotFinish { count += "; the last run did not finish" }
    if let shortfall {
      count +=
        "; fewer than the \(runsAsked.grouped) overlapping runs asked for: \(shortfall), the machine "
        + "too busy to run the tasks together"
    }
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
