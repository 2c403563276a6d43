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
