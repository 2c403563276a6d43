/// What one `explore` call runs, once the environment had its say: the strategy as written and
/// as run (scaled, with extra preemptions, with a time budget), this process's shard, the pinned
/// tokens, and what is wrong with any of it.
struct ExplorationSetup: Sendable {
  /// A token pinned with `pinned:`, as written and as read.
  struct Pinned: Sendable {
    let text: String
    let token: ReplayToken
  }

  /// The strategy, as written.
  let strategy: ExplorationStrategy
  /// The strategy as it runs in this process.
  let effective: ExplorationStrategy
  /// The part of the schedules this process explores; `nil` for a replay, which runs in every
  /// shard, and when `LOCKSTEP_SHARD` is not set.
  let shard: ExplorationShard?
  let pinned: [Pinned]
  /// The pinned tokens, as written.
  let pinnedTexts: [String]
  /// The environment variables that changed the strategy: `LOCKSTEP_EXPLORE_SCALE=100`.
  let settings: [String]
  /// Bad parameters, bad pinned tokens and bad environment values: nothing runs.
  let problems: [String]

  init(strategy: ExplorationStrategy, pinned: [String], environment: ExplorationEnvironment) {
    self.strategy = strategy
    effective = strategy.applying(environment)
    shard = strategy.isReplay ? nil : environment.shard
    pinnedTexts = pinned
    var settings = environment.settings(changing: strategy)
    if !strategy.isReplay, let time = environment.timeBudget, let text = environment.timeText,
      strategy.timeBudget.map({ time < $0 }) ?? true
    {
      settings.append("\(ExplorationEnvironment.timeVariable)=\(text)")
    }
    self.settings = settings
    var problems = environment.problems
    if let problem = strategy.problem { problems.insert(problem, at: 0) }
    var read: [Pinned] = []
    for text in pinned {
      if let token = ReplayToken(text) {
        read.append(Pinned(text: text, token: token))
      } else {
        problems.append(
          "pinned: \"\(text)\" is not a replay token; pin the token a failure report printed")
      }
    }
    self.pinned = read
    self.problems = problems
  }

  /// The strategy as the reports name it: as written, how the environment changed it, and the
  /// shard — `pct(schedules: 200, depth: 2, seed: 1), run as pct(schedules: 20000, depth: 2,
  /// seed: 1) by LOCKSTEP_EXPLORE_SCALE=100, in shard 2/4 (LOCKSTEP_SHARD)`.
  var title: String {
    var title = strategy.description
    if !settings.isEmpty {
      title += ", run as \(effective) by \(settings.joined(separator: " and "))"
    }
    if let shard { title += ", in shard \(shard) (\(ExplorationEnvironment.shardVariable))" }
    return title
  }
}

extension ExplorationSetup {
  /// What is wrong with the bounds of each schedule's run: `maxSteps:`, `timeout:`, `gracePeriod:`.
  static func runBoundProblems(maxSteps: Int, timeout: Duration, gracePeriod: Duration = .zero)
    -> [String]
  {
    var problems: [String] = []
    if maxSteps < 1 { problems.append("maxSteps: \(maxSteps) must be at least 1") }
    if timeout <= .zero { problems.append("timeout: \(timeout.lockstepText) must be more than zero") }
    if gracePeriod < .zero {
      problems.append("gracePeriod: \(gracePeriod.lockstepText) must not be negative")
    }
    return problems
  }
}
