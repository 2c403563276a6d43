extension ExplorationStrategy: LinearizabilityMode {
  /// A check that explores returns what ran and the failure, with its timeline and token.
  public typealias CheckResult = LinearizabilityResult

  /// Explores `check` with this strategy.
  public nonisolated(nonsending) func _check(_ check: some _LinearizabilityCheck) async
    -> LinearizabilityResult
  {
    await check._explore(self)
  }
}

// The strategies, as a mode of `checkLinearizability` names them: `.random(schedules: 100)`.
extension LinearizabilityMode where Self == ExplorationStrategy {
  /// ``ExplorationStrategy/random(schedules:seed:)``.
  public static func random(schedules: Int = 1_000, seed: UInt64 = Interleavings.sessionSeed) -> Self {
    ExplorationStrategy.random(schedules: schedules, seed: seed)
  }

  /// ``ExplorationStrategy/pct(schedules:depth:seed:)``.
  public static func pct(
    schedules: Int = 1_000, depth: Int = 3, seed: UInt64 = Interleavings.sessionSeed
  ) -> Self {
    ExplorationStrategy.pct(schedules: schedules, depth: depth, seed: seed)
  }

  /// ``ExplorationStrategy/exhaustive(maxPreemptions:limit:)``.
  public static func exhaustive(maxPreemptions: Int = 2, limit: Int = 100_000) -> Self {
    ExplorationStrategy.exhaustive(maxPreemptions: maxPreemptions, limit: limit)
  }

  /// ``ExplorationStrategy/replay(_:)-(String)``: the token a report of `checkLinearizability`
  /// printed, `C1.…/L2.…`.
  public static func replay(_ token: String) -> Self {
    ExplorationStrategy.replay(token)
  }

  /// ``ExplorationStrategy/replay(_:)-(ReplayToken)``.
  public static func replay(_ token: ReplayToken) -> Self {
    ExplorationStrategy.replay(token)
  }

  /// ``ExplorationStrategy/replayUpToCrash(_:atStep:)``.
  public static func replayUpToCrash(_ token: String, atStep step: Int) -> Self {
    ExplorationStrategy.replayUpToCrash(token, atStep: step)
  }
}
