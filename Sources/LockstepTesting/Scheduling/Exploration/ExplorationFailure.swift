/// A failing schedule found by ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)``:
/// what failed, the timeline of the schedule, and the token that replays it.
///
/// ```swift
/// let result = await explore(.random()) { try await model.check() }
/// if let failure = result.failure {
///   print(failure.timeline)
///   await explore(.replay(failure.token)) { try await model.check() }   // fails the same way
/// }
/// ```
public struct ExplorationFailure: Sendable, Equatable, CustomStringConvertible {
  /// The strategy that found it.
  ///
  /// ```swift
  /// print(failure.strategy)   // "random(schedules: 1000, seed: 42)"
  /// ```
  public let strategy: String
  /// The number of the schedule that failed first, from 1.
  ///
  /// ```swift
  /// print("failed at schedule \(failure.schedule)")
  /// ```
  public let schedule: Int
  /// Replays the reported (shrunk) schedule with ``ExplorationStrategy/replay(_:)-(ReplayToken)``.
  ///
  /// ```swift
  /// await explore(.replay(failure.token)) { try await model.check() }
  /// ```
  public let token: ReplayToken
  /// What failed in the reported schedule: recorded issues and failed expectations, a thrown
  /// error, a deadlock report.
  ///
  /// ```swift
  /// for message in failure.failures { print(message) }
  /// ```
  public let failures: [String]
  /// The reported schedule, step by step.
  ///
  /// ```swift
  /// print(failure.timeline)
  /// ```
  public let timeline: Timeline
  /// Preemptions in the reported schedule: switches away from a task that could have gone on.
  ///
  /// ```swift
  /// #expect(failure.preemptions <= 1)
  /// ```
  public let preemptions: Int
  /// Context switches in the reported schedule: steps that ran another task than the step before.
  ///
  /// ```swift
  /// print(failure.contextSwitches)
  /// ```
  public let contextSwitches: Int
  /// Preemptions and context switches of the schedule as first found, before shrinking.
  ///
  /// ```swift
  /// print("shrunk from \(failure.found.preemptions) preemptions")
  /// ```
  public let found: (preemptions: Int, contextSwitches: Int)

  /// Two failures are equal when every field is.
  ///
  /// ```swift
  /// #expect(again.failure == failure)
  /// ```
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.strategy == rhs.strategy && lhs.schedule == rhs.schedule && lhs.token == rhs.token
      && lhs.failures == rhs.failures && lhs.timeline == rhs.timeline
      && lhs.preemptions == rhs.preemptions && lhs.contextSwitches == rhs.contextSwitches
      && lhs.found == rhs.found
  }

  /// The whole report: schedule, what failed, replay token, shrinking, timeline.
  ///
  /// ```swift
  /// print(failure)
  /// ```
  public var description: String {
    var lines = [
      "explore \(strategy) found a failing schedule (schedule \(schedule)).", "What failed:",
    ]
    lines += failures.map { "  - " + $0.replacingNewlines(with: "\n    ") }
    lines.append("Replay it exactly with: .replay(\"\(token)\")")
    if found != (preemptions, contextSwitches) {
      lines.append(
        "Simplified from \(found.preemptions) preemption(s) and \(found.contextSwitches) context "
          + "switch(es) to \(preemptions) and \(contextSwitches) (fewer preemptions first).")
    } else {
      lines.append("\(preemptions) preemption(s), \(contextSwitches) context switch(es).")
    }
    lines.append("Timeline of the schedule:")
    lines.append(timeline.description)
    return lines.joined(separator: "\n")
  }
}

extension String {
  func replacingNewlines(with separator: String) -> String {
    split(separator: "\n", omittingEmptySubsequences: false).joined(separator: separator)
  }
}
