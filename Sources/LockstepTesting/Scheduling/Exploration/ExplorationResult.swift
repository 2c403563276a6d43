/// What ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)`` did: how many
/// schedules ran and how many of them were distinct, how many choice points there were, whether
/// the search was complete, and the failing schedule if it found one — or the problem that made it
/// fail without one.
///
/// ```swift
/// let result = await explore(.exhaustive(maxPreemptions: 2)) { try await model.check() }
/// #expect(result.passed)
/// print(result)   // "explore exhaustive(…): 37 schedule(s), 37 distinct, up to 9 choice point(s)…"
/// ```
public struct ExplorationResult: Sendable, CustomStringConvertible {
  /// The strategy, as written.
  public let strategy: String
  /// How many schedules ran, not counting the runs that shrank and replayed a failure.
  public let schedulesRun: Int
  /// Whether every schedule the strategy stands for ran (in a shard, every one of its part);
  /// `false` when a failure, a limit or the time budget stopped it, or when a replay left its
  /// token's schedule (``divergence``).
  public let isComplete: Bool
  /// How many of the schedules that ran differed from each other.
  public let distinctSchedules: Int
  /// For an exhaustive search, how many schedules did not run as planned (the body took another
  /// path for the same choices), so the search is not complete; zero for other strategies.
  public let offPlanSchedules: Int
  /// Whether Swift's hashing was deterministic in the process.
  public let hashingIsDeterministic: Bool
  /// The most choice points (steps with two or more ready jobs) one schedule had; zero means
  /// there was nothing to explore.
  public let mostChoicePoints: Int
  /// How many Lockstep waits (of tasks other than the body) the longest schedule reached: where
  /// `cancellation: .atLockstepWaits` can cancel a task.
  public let cancellationPoints: Int
  /// The failing schedule, shrunk, or `nil` when every schedule passed.
  public let failure: ExplorationFailure?
  /// The issue the exploration recorded that is not a failing schedule, as recorded — it could not
  /// run (its arguments, a nested run, scheduling unavailable), a replay left its token's schedule,
  /// a pinned token is stale — or `nil`.
  public internal(set) var problem: String?
  /// For a ``ExplorationStrategy/replay(_:)-(String)``, where the run left its token's schedule;
  /// `nil` when it followed it, and for other strategies.
  public let divergence: ReplayDivergence?
  /// The part of the schedules this process explored (`LOCKSTEP_SHARD`); `nil` when not sharded.
  public let shard: ExplorationShard?
  /// Whether the time budget ran out before the schedules did.
  public let ranOutOfTime: Bool
  /// How many pinned tokens replayed their schedule and passed (not counted in ``schedulesRun``).
  public let pinnedPassed: Int
  /// The pinned tokens, as written, that no longer replay the schedule they were pinned for.
  public let stalePinnedTokens: [String]
  /// For an exhaustive search stopped before the end, how much of its search tree is left; `nil`
  /// otherwise, and in a shard.
  public let progress: SearchProgress?
  /// Whether the exploration was asked to inject cancellations.
  let injectsCancellation: Bool
  /// Whether it replayed a token (one schedule by design).
  let isReplay: Bool
  /// The strategy as the report names it, with what the environment changed
  /// (``ExplorationSetup/title``).
  let title: String
  /// The kinds of lock the body took that were no scheduling points (Linux: read-write locks, and
  /// locks taken while the runtime or Foundation held one of theirs): the interleavings inside
  /// them were not explored, whatever ``isComplete`` says. Empty where locks are not seen at all
  /// (see <doc:FindingRaces>).
  public let locksNotScheduled: [String]
  /// The time budget it ran with, if any.
  let timeBudget: Duration?
  /// Schedules of other shards' subtrees that a sharded exhaustive search ran to find the shape
  /// of the search; counted in ``schedulesRun``.
  let shapeSchedules: Int
  /// For a shard of an exhaustive search, the schedules it ran in each subtree, by number.
  let subtreeSchedules: [Int]?

  init(
    strategy: String, schedulesRun: Int, isComplete: Bool, distinctSchedules: Int,
    mostChoicePoints: Int, cancellationPoints: Int, failure: ExplorationFailure?,
    divergence: ReplayDivergence?, injectsCancellation: Bool, isReplay: Bool,
    title: String? = nil, shard: ExplorationShard? = nil, ranOutOfTime: Bool = false,
    timeBudget: Duration? = nil, pinnedPassed: Int = 0, stalePinnedTokens: [String] = [],
    shapeSchedules: Int = 0, progress: SearchProgress? = nil, offPlanSchedules: Int = 0,
    hashingIsDeterministic: Bool = HashingDeterminism.isDeterministic, problem: String? = nil,
    subtreeSchedules: [Int]? = nil, locksNotScheduled: [String] = []
  ) {
    self.locksNotScheduled = locksNotScheduled
    self.subtreeSchedules = subtreeSchedules
    self.problem = problem
    self.offPlanSchedules = offPlanSchedules
    self.hashingIsDeterministic = hashingIsDeterministic
    self.strategy = strategy
    self.schedulesRun = schedulesRun
    self.isComplete = isComplete
    self.distinctSchedules = distinctSchedules
    self.mostChoicePoints = mostChoicePoints
    self.cancellationPoints = cancellationPoints
    self.failure = failure
    self.divergence = divergence
    self.injectsCancellation = injectsCancellation
    self.isReplay = isReplay
    self.title = title ?? strategy
    self.shard = shard
    self.ranOutOfTime = ranOutOfTime
    self.timeBudget = timeBudget
    self.pinnedPassed = pinnedPassed
    self.stalePinnedTokens = stalePinnedTokens
    self.shapeSchedules = shapeSchedules
    self.progress = progress
  }

  /// For ``ExplorationStrategy/replayUpToCrash(_:atStep:)``, the step it stopped before — the one
  /// that crashed the process in the recorded run — when it got there; `nil` otherwise. Then
  /// ``failure`` holds the timeline up to the crash.
  public var stoppedBeforeCrashingStep: Int? { failure?.stoppedBeforeCrashingStep }

  /// Whether the exploration passed: it recorded no issue, neither a failing schedule
  /// (``failure``) nor a ``problem``.
  public var passed: Bool { failure == nil && problem == nil }

  /// Whether there was nothing to explore: schedules ran, but no two jobs were ever ready at once
  /// and no cancellation could be tried, so every schedule was the same.
  var hadNothingToExplore: Bool {
    !isReplay && schedulesRun > 0 && mostChoicePoints == 0
      && (!injectsCancellation || cancellationPoints == 0)
  }

  /// What an exploration that had nothing to explore says.
  static let nothingToExplore =
    "no two jobs were ever ready at once, so there was nothing to explore: every schedule was the "
    + "same. An await on an idle actor switches to it inline and is not a choice point; choice "
    + "points come from tasks that run at the same time (Task {}, async let, task groups), "
    + "continuations resumed while other work runs, Task.yield() and sleeps."

  /// One line, or the failure's whole report.
  public var description: String {
    if let failure {
      return failure.description + (problem.map { "\nAlso: \($0)" } ?? "")
    }
    if let problem, schedulesRun == 0 { return problem }
    let verdict = problem.map { "failed: \($0)" } ?? "no failure"
    var text: String
    if hadNothingToExplore && problem == nil {
      text =
        "explore \(title): \(schedulesRun) schedule(s) ran, no failure; " + Self.nothingToExplore
    } else {
      let extent =
        isComplete
        ? locksNotScheduled.isEmpty
          ? "all of them"
          : "all of them at the points Lockstep sees, but not inside what the body also took — "
            + locksNotScheduled.joined(separator: ", ")
            + " — which are no scheduling points: interleavings there were not explored"
        : offPlanSchedules > 0
          ? "not complete: \(offPlanSchedules) of them did not run as planned (they repeated a "
            + "schedule already run, or could not follow the planned choices: the body takes "
            + "another path for the same choices), so the search did not cover its tree"
          : ranOutOfTime
            ? "stopped when its time budget of \(timeBudget?.lockstepText ?? "?") ran out"
            : "stopped before the end"
      text =
        "explore \(title): \(schedulesRun) schedule(s), \(distinctSchedules) distinct, up to "
        + "\(mostChoicePoints) choice point(s) each, \(extent)"
        + (progress.map { " (\($0))" } ?? "") + "; \(verdict)"
    }
    if shapeSchedules > 0 {
      text +=
        "; \(shapeSchedules) of the schedules lie in other shards' subtrees, run to find the shape "
        + "of the search"
    }
    if injectsCancellation {
      text +=
        cancellationPoints == 0
        ? "; no Lockstep wait was reached, so no cancellation was tried"
        : "; cancellation tried at up to \(cancellationPoints) Lockstep wait(s)"
    }
    if pinnedPassed > 0 {
      text += "; before them, \(pinnedPassed) pinned token(s) replayed their schedule and passed"
    }
    if !stalePinnedTokens.isEmpty && problem == nil {
      text +=
        "; \(stalePinnedTokens.count) pinned token(s) no longer replay their schedule (stale): "
        + stalePinnedTokens.joined(separator: ", ")
    }
    if let divergence, problem == nil {
      text += ". This replay did not follow its token's schedule. \(divergence)"
    }
    if !hashingIsDeterministic && divergence?.hashingIsDeterministic != false {
      text += ". \(HashingDeterminism.note)"
    }
    return text
  }
}
