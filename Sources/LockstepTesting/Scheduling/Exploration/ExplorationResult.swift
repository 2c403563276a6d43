/// What ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)`` did: how many
/// schedules ran and how many of them were distinct, how many choice points there were, whether
/// the search was complete, and the failing schedule if it found one.
///
/// ```swift
/// let result = await explore(.exhaustive(maxPreemptions: 2)) { try await model.check() }
/// #expect(result.failure == nil)
/// print(result)   // "explore exhaustive(…): 37 schedule(s), 37 distinct, up to 9 choice point(s)…"
/// ```
public struct ExplorationResult: Sendable, CustomStringConvertible {
  /// The strategy, as written.
  ///
  /// ```swift
  /// print(result.strategy)   // "pct(schedules: 1000, depth: 3, seed: 42)"
  /// ```
  public let strategy: String
  /// How many schedules ran before the exploration stopped, not counting the runs spent shrinking
  /// a failure and replaying it.
  ///
  /// ```swift
  /// print(result.schedulesRun)
  /// ```
  public let schedulesRun: Int
  /// Whether every schedule the strategy stands for ran: for an exhaustive search, every schedule
  /// within the preemption bound, each once (then ``schedulesRun`` is how many exist; a search
  /// whose schedules did not all run as planned, ``offPlanSchedules``, is not complete); for
  /// random and PCT,
  /// all requested schedules; for a replay, its one schedule; in a shard (`LOCKSTEP_SHARD`), all
  /// of the shard's part. `false` when a failure stopped the exploration, or a limit or the time
  /// budget cut it short.
  ///
  /// ```swift
  /// #expect(result.isComplete)
  /// ```
  public let isComplete: Bool
  /// How many of the schedules that ran were different from each other: different choices, or a
  /// cancellation at another Lockstep wait. Random and PCT schedules can repeat when a body has
  /// few choice points; a body without any has exactly one schedule, however many run.
  ///
  /// ```swift
  /// let result = await explore(.random(schedules: 500)) { await twoReloads() }
  /// print("\(result.distinctSchedules) of \(result.schedulesRun) schedules were distinct")
  /// ```
  public let distinctSchedules: Int
  /// For an exhaustive search, how many schedules did not run as the search planned them: they
  /// repeated a schedule that had already run, or could not follow the planned choices. The body
  /// took another path for the same choices (it iterates a `Set` or `Dictionary` while hashing is
  /// not deterministic, or depends on state outside the run), so the search did not cover its
  /// tree and is not complete. Zero for other strategies.
  ///
  /// ```swift
  /// #expect(result.offPlanSchedules == 0)
  /// ```
  public let offPlanSchedules: Int
  /// Whether Swift's hashing was deterministic in the process (on Linux it is, unless
  /// `LOCKSTEP_RANDOM_HASHING=1`): when not, the same choices may not run the same schedule.
  public let hashingIsDeterministic: Bool
  /// The most choice points one schedule had: steps at which two or more jobs were ready, so the
  /// scheduler had to choose. Zero means there was nothing to explore — no two jobs were ever
  /// ready at once. An `await` on an idle actor switches to it inline and is not a choice point;
  /// choice points come from tasks that run at the same time (`Task {}`, `async let`, task
  /// groups), continuations resumed while others run, `Task.yield()`, and sleeps.
  ///
  /// ```swift
  /// let result = await explore(.pct()) { await model.reload() }
  /// #expect(result.mostChoicePoints > 0, "the body has nothing to interleave")
  /// ```
  public let mostChoicePoints: Int
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
  /// For a ``ExplorationStrategy/replay(_:)-(String)``: where the run left the schedule its token
  /// recorded, or `nil` when it followed it (and for other strategies). A replay that diverges is
  /// reported, with its likely cause; it never runs another schedule in silence.
  ///
  /// ```swift
  /// let replay = await explore(.replay(token)) { try await model.check() }
  /// #expect(replay.divergence == nil)
  /// ```
  public let divergence: ReplayDivergence?
  /// The part of the schedules this process explored, from `LOCKSTEP_SHARD=k/n`; `nil` when it
  /// is not set, and for a replay, which runs in every shard (see ``ExplorationShard``).
  ///
  /// ```swift
  /// // LOCKSTEP_SHARD=2/4 swift test
  /// print(result.shard?.description ?? "all of it")   // "2/4"
  /// ```
  public let shard: ExplorationShard?
  /// Whether the exploration stopped because its time budget ran out
  /// (``ExplorationStrategy/forAtMost(_:)`` or `LOCKSTEP_EXPLORE_TIME`) before its schedules
  /// did; ``schedulesRun`` says how many ran.
  ///
  /// ```swift
  /// let result = await explore(.pct(schedules: 1_000_000).forAtMost(.seconds(30))) { await check() }
  /// if result.ranOutOfTime { print("\(result.schedulesRun) schedules in 30 s") }
  /// ```
  public let ranOutOfTime: Bool
  /// How many of the tokens pinned with `pinned:` replayed their schedule and passed, before the
  /// exploration went on to new schedules. They are not counted in ``schedulesRun``.
  ///
  /// ```swift
  /// let result = await explore(.pct(), pinned: ["L2.AQAIAkRVAgAA-vMU9srOaw"]) { await check() }
  /// #expect(result.pinnedPassed == 1)
  /// ```
  public let pinnedPassed: Int
  /// The pinned tokens that no longer replay the schedule they were pinned for — the code under
  /// test changed — as written. Each is reported at the `explore` call as stale: it passed, but
  /// it no longer checks anything.
  ///
  /// ```swift
  /// for token in result.stalePinnedTokens { print("stale: \(token)") }
  /// ```
  public let stalePinnedTokens: [String]
  /// For an exhaustive search that its `limit` or time budget stopped before the end: how much of
  /// its search tree is left — the untried subtrees counted from the last schedule, and an
  /// estimate of the schedules in all (see ``SearchProgress``). `nil` when the search was
  /// complete or found a failure, for the other strategies, and in a shard (`LOCKSTEP_SHARD`).
  ///
  /// ```swift
  /// let result = await explore(.exhaustive(maxPreemptions: 1, limit: 2_000)) { await check() }
  /// print(result.progress?.estimatedSchedules ?? result.schedulesRun)
  /// ```
  public let progress: SearchProgress?
  /// Whether the exploration was asked to inject cancellations.
  let injectsCancellation: Bool
  /// Whether it replayed a token (one schedule by design).
  let isReplay: Bool
  /// The strategy as the report names it, with what the environment changed
  /// (``ExplorationSetup/title``).
  let title: String
  /// The time budget it ran with, if any.
  let timeBudget: Duration?
  /// Schedules of other shards' subtrees that a sharded exhaustive search ran to find the shape
  /// of the search; counted in ``schedulesRun``.
  let shapeSchedules: Int

  init(
    strategy: String, schedulesRun: Int, isComplete: Bool, distinctSchedules: Int,
    mostChoicePoints: Int, cancellationPoints: Int, failure: ExplorationFailure?,
    divergence: ReplayDivergence?, injectsCancellation: Bool, isReplay: Bool,
    title: String? = nil, shard: ExplorationShard? = nil, ranOutOfTime: Bool = false,
    timeBudget: Duration? = nil, pinnedPassed: Int = 0, stalePinnedTokens: [String] = [],
    shapeSchedules: Int = 0, progress: SearchProgress? = nil, offPlanSchedules: Int = 0,
    hashingIsDeterministic: Bool = HashingDeterminism.isDeterministic
  ) {
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
  ///
  /// ```swift
  /// print(result)
  /// ```
  public var description: String {
    if let failure { return failure.description }
    var text: String
    if hadNothingToExplore {
      text =
        "explore \(title): \(schedulesRun) schedule(s) ran, no failure; " + Self.nothingToExplore
    } else {
      let extent =
        isComplete
        ? "all of them"
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
        + (progress.map { " (\($0))" } ?? "") + "; no failure"
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
    if !stalePinnedTokens.isEmpty {
      text +=
        "; \(stalePinnedTokens.count) pinned token(s) no longer replay their schedule (stale): "
        + stalePinnedTokens.joined(separator: ", ")
    }
    if let divergence { text += ". This replay did not follow its token's schedule. \(divergence)" }
    if !hashingIsDeterministic && divergence?.hashingIsDeterministic != false {
      text += ". \(HashingDeterminism.note)"
    }
    return text
  }
}
