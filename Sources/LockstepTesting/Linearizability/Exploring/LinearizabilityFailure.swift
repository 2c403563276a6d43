/// A run of a scenario that failed under ``checkLinearizability(_:scenarios:condition:maxSteps:timeout:fileID:filePath:line:column:of:operations:invariant:)``:
/// its calls and results, shrunk to the smallest scenario that still fails, the schedule that
/// made it fail, and the token that replays both.
///
/// ```swift
/// let result = await checkLinearizability(of: { Counter() }, operations: operations)
/// if let failure = result.failure {
///   print(failure.calls)   // a column a task, each call with its result
///   await checkLinearizability(.replay(failure.token), of: { Counter() }, operations: operations)
/// }
/// ```
public struct LinearizabilityFailure: Sendable, CustomStringConvertible {
  /// The scenario that failed first, from 1.
  public let scenario: Int
  /// How many scenarios the check was to run.
  let scenarioCount: Int
  /// Whether the results were ones no order of the calls gives (rather than an invariant that
  /// failed, a thrown error, a deadlock, or a run that went on too long).
  public let isNotLinearizable: Bool
  /// The scenario's calls, each with its result, as the report prints them.
  public let calls: String
  /// The size of the scenario that failed first, and of the one reported, when shrinking made it
  /// smaller: `3 tasks × 2–3 calls, 1 before`.
  public let foundSize: String
  /// The size of the reported scenario.
  public let size: String
  /// How many smaller scenarios shrinking explored.
  public let smallerScenariosTried: Int
  /// The token that replays the reported scenario and schedule: `C1.…/L2.…`; pass it to
  /// ``ExplorationStrategy/replay(_:)-(String)``.
  public let token: String
  /// The failing schedule of the reported scenario: what failed, its timeline, its preemptions.
  public let schedule: ExplorationFailure
  /// The strategy, as the report names it.
  let title: String

  /// The report's first line.
  var headline: String {
    let place = "scenario \(scenario) of \(scenarioCount), \(title)"
    return isNotLinearizable
      ? "checkLinearizability found results that no order of the calls gives (\(place))."
      : "checkLinearizability found a failing run (\(place))."
  }

  var replayLine: String { "Replay it exactly with: .replay(\"\(token)\")" }

  /// The failing run as an SVG picture, one lane per task.
  public var timelineSVG: String {
    TimelinePicture(
      timeline: schedule.timeline, title: headline, replay: replayLine,
      failures: schedule.failures
    ).svg
  }

  /// The whole report, as the check records it.
  public var description: String {
    var lines = [headline, "What failed:"]
    lines += schedule.failures.map { "  - " + $0.replacingNewlines(with: "\n    ") }
    lines.append(replayLine)
    if let line = schedule.replay.line { lines.append(line) }
    if foundSize != size {
      lines.append(
        "Shrunk from \(foundSize) to \(size) (\(smallerScenariosTried) smaller scenario(s) explored).")
    }
    lines.append(
      "\(schedule.preemptions) preemption(s), \(schedule.contextSwitches) context switch(es).")
    lines.append("Timeline of the run:")
    lines.append(schedule.timeline.description)
    if !schedule.readsVirtualNow { lines.append(VirtualNow.realClocksNote) }
    if !schedule.hashingIsDeterministic { lines.append(HashingDeterminism.note) }
    return lines.joined(separator: "\n")
  }
}
