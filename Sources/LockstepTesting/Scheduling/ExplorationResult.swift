/// What ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)`` did: how many
/// schedules ran, whether the search was complete, and the failing schedule if it found one.
///
/// ```swift
/// let result = await explore(.exhaustive(maxPreemptions: 2)) { try await model.check() }
/// #expect(result.failure == nil)
/// print(result)   // "exhaustive(maxPreemptions: 2, …): 37 schedules, all of them; no failure"
/// ```
public struct ExplorationResult: Sendable, CustomStringConvertible {
  /// The strategy, as written.
  ///
  /// ```swift
  /// print(result.strategy)   // "pct(schedules: 1000, depth: 3, seed: 42)"
  /// ```
  public let strategy: String
  /// How many schedules ran before the exploration stopped, not counting the runs spent shrinking
  /// a failure.
  ///
  /// ```swift
  /// print(result.schedulesRun)
  /// ```
  public let schedulesRun: Int
  /// Whether every schedule the strategy stands for ran: for an exhaustive search, every schedule
  /// within the preemption bound (then ``schedulesRun`` is how many exist); for random and PCT,
  /// all requested schedules; for a replay, its one schedule. `false` when a failure stopped the
  /// exploration or a limit cut it short.
  ///
  /// ```swift
  /// #expect(result.isComplete)
  /// ```
  public let isComplete: Bool
  /// How many Lockstep waits (of tasks other than the body) the longest schedule reached: the
  /// points where `cancellation: .atLockstepWaits` can cancel a task. Zero means that no
  /// cancellation could be tried — the code under test never waits at a Lockstep primitive.
  ///
  /// ```swift
  /// let result = await explore(.exhaustive(), cancellation: .atLockstepWaits) { try await check() }
  /// #expect(result.cancellationPoints > 0)
  /// ```
  public let cancellationPoints: Int
  /// The failing schedule, shrunk, or `nil` when every schedule passed.
  ///
  /// ```swift
  /// if let failure = result.failure { print(failure.token) }
  /// ```
  public let failure: ExplorationFailure?
  /// Whether the exploration was asked to inject cancellations.
  let injectsCancellation: Bool

  /// One line, or the failure's whole report.
  ///
  /// ```swift
  /// print(result)
  /// ```
  public var description: String {
    if let failure { return failure.description }
    let extent = isComplete ? "all of them" : "stopped before the end"
    var text = "explore \(strategy): \(schedulesRun) schedule(s), \(extent); no failure"
    if injectsCancellation {
      text +=
        cancellationPoints == 0
        ? "; no Lockstep wait was reached, so no cancellation was tried"
        : "; cancellation tried at up to \(cancellationPoints) Lockstep wait(s)"
    }
    return text
  }
}

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
