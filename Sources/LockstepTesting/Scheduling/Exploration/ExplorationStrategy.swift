/// How ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)`` chooses the
/// schedules it runs.
///
/// ```swift
/// await explore(.random(schedules: 500, seed: 7)) { try await twoReloads() }
/// await explore(.pct(schedules: 500, depth: 2)) { try await twoReloads() }
/// await explore(.exhaustive(maxPreemptions: 2)) { try await twoReloads() }
/// await explore(.replay("L2.AQAIAkRVAgAA-vMU9srOaw")) { try await twoReloads() }
/// ```
///
/// A parameter that cannot work (`schedules: 0`, `depth: 0`, `maxPreemptions: -1`, `limit: 0`) is
/// reported at the `explore` call, and nothing runs.
///
/// Random and PCT schedules are a function of the seed, and the seed is fixed unless you set one
/// (``Interleavings/sessionSeed``). For that to mean the same schedules on every run, the code
/// under test must also do the same thing given the same choices: code that iterates a `Set` or
/// a `Dictionary` — a multicast operator resuming its subscribers, say — does so in a per-process
/// order unless the test process starts with `SWIFT_DETERMINISTIC_HASHING=1` in its environment
/// (`SWIFT_DETERMINISTIC_HASHING=1 swift test`). Lockstep reads that variable and, when it is not
/// set, says so in its failure reports; a replay that does not follow its token says where it
/// diverged.
///
/// The environment of the test process scales every strategy without editing the test (see
/// <doc:FindingRaces#Explore-at-CI-scale>): `LOCKSTEP_EXPLORE_SCALE` multiplies `schedules:` and
/// `limit:`, `LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS` raises `maxPreemptions:`, `LOCKSTEP_EXPLORE_TIME`
/// bounds the real time like ``forAtMost(_:)``, and `LOCKSTEP_SHARD=k/n` makes this process
/// explore only its part (``ExplorationShard``).
public struct ExplorationStrategy: Sendable, CustomStringConvertible {
  enum Kind: Sendable {
    case random(schedules: Int, seed: UInt64)
    case pct(schedules: Int, depth: Int, seed: UInt64)
    case exhaustive(maxPreemptions: Int, limit: Int)
    case replay(ReplayToken?, text: String)
  }

  let kind: Kind
  /// The most real time the exploration spends, set with ``forAtMost(_:)``.
  let timeBudget: Duration?

  init(kind: Kind, timeBudget: Duration? = nil) {
    self.kind = kind
    self.timeBudget = timeBudget
  }

  /// Runs `schedules` schedules, each picking the next ready job uniformly at random.
  ///
  /// Simple and unbiased between choices, but a bug that needs one rare choice deep in a long
  /// schedule can take many schedules to hit; prefer ``pct(schedules:depth:seed:)`` there.
  ///
  /// ```swift
  /// await explore(.random(schedules: 1_000, seed: 42)) { try await model.check() }
  /// ```
  ///
  /// - Parameters:
  ///   - schedules: How many schedules to run at most; at least 1. `LOCKSTEP_EXPLORE_SCALE`
  ///     multiplies it; with `LOCKSTEP_SHARD`, each shard runs this many of its own.
  ///   - seed: The seed of the whole exploration; by default ``Interleavings/sessionSeed``: the
  ///     `LOCKSTEP_SEED` environment variable when set, otherwise the fixed default 1, so that
  ///     every machine explores the same schedules. Schedule *i* uses a seed derived from it.
  ///     The same seed runs the same schedules as long as the body does the same thing given the
  ///     same choices; code that iterates a `Set` or a `Dictionary` does so only when hashing is
  ///     deterministic (`SWIFT_DETERMINISTIC_HASHING=1` in the environment of the test process).
  public static func random(schedules: Int = 1_000, seed: UInt64 = Interleavings.sessionSeed)
    -> Self
  {
    Self(kind: .random(schedules: schedules, seed: seed))
  }

  /// Probabilistic concurrency testing: every task gets a random priority, the highest-priority
  /// ready task runs, and at `depth − 1` random points the running task drops to the lowest
  /// priority.
  ///
  /// Its guarantee: a bug of depth *d* — one that shows up whenever *d* particular ordering
  /// constraints between steps hold (a stale-result race is depth 2: reload 2 finishes before
  /// reload 1) — is found by each schedule with probability at least 1 / (n · k^(d−1)), for *n*
  /// tasks and *k* choice points, whatever the program. Random choice gives no such bound.
  ///
  /// ```swift
  /// await explore(.pct(schedules: 1_000, depth: 2, seed: 42)) { try await model.check() }
  /// ```
  ///
  /// - Parameters:
  ///   - schedules: How many schedules to run at most; at least 1. `LOCKSTEP_EXPLORE_SCALE`
  ///     multiplies it; with `LOCKSTEP_SHARD`, each shard runs this many of its own.
  ///   - depth: The bug depth to aim for, at least 1; 1 tries each task order, 2 and 3 find most
  ///     races.
  ///   - seed: The seed of the whole exploration; by default ``Interleavings/sessionSeed`` (see
  ///     ``random(schedules:seed:)``).
  public static func pct(
    schedules: Int = 1_000, depth: Int = 3, seed: UInt64 = Interleavings.sessionSeed
  ) -> Self {
    Self(kind: .pct(schedules: schedules, depth: depth, seed: seed))
  }

  /// Every schedule with at most `maxPreemptions` preemptions, depth-first.
  ///
  /// A preemption is a switch away from a task that could have gone on running. Switches at
  /// points where the running task suspended are free, so every ordering of tasks that only
  /// interleave at their awaits is covered even with `maxPreemptions: 0`. The result says how many
  /// schedules ran; when the search is complete, that is how many there are, and when `limit`
  /// stops it, ``ExplorationResult/progress`` says how much is left.
  ///
  /// ```swift
  /// let result = await explore(.exhaustive(maxPreemptions: 2)) { try await model.check() }
  /// #expect(result.isComplete)
  /// ```
  ///
  /// - Parameters:
  ///   - maxPreemptions: The preemption bound; 0 or more. Only
  ///     `LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS` raises it, never the scale.
  ///   - limit: Stop after this many schedules (at least 1); the result then says the search was
  ///     incomplete. `LOCKSTEP_EXPLORE_SCALE` multiplies it; with `LOCKSTEP_SHARD`, it counts the
  ///     schedules of each shard.
  public static func exhaustive(maxPreemptions: Int = 2, limit: Int = 100_000) -> Self {
    Self(kind: .exhaustive(maxPreemptions: maxPreemptions, limit: limit))
  }

  /// Runs exactly the schedule a failing exploration printed.
  ///
  /// ```swift
  /// await explore(.replay("L2.AQAIAkRVAgAA-vMU9srOaw")) { try await model.check() }
  /// ```
  ///
  /// A replay checks that it follows the token's schedule; when it does not, it reports where it
  /// diverged and the likely cause (see ``ReplayDivergence``). Tokens printed by a crash report
  /// hold the choices made before the crash; the replay makes them, then default choices.
  ///
  /// - Parameter token: The replay token, as printed. Text that is not a token is reported as an
  ///   issue and nothing runs.
  public static func replay(_ token: String) -> Self {
    Self(kind: .replay(ReplayToken(token), text: token))
  }

  /// Runs exactly the schedule of `token`.
  ///
  /// ```swift
  /// let again = await explore(.replay(failure.token)) { try await model.check() }
  /// ```
  public static func replay(_ token: ReplayToken) -> Self {
    Self(kind: .replay(token, text: token.description))
  }

  /// The same strategy, stopping once it has spent `duration` of real time: a time budget.
  ///
  /// The exploration stops at whichever comes first — its schedules, or the time — and the
  /// result says how many schedules ran and that time ran out (``ExplorationResult/ranOutOfTime``).
  /// The first schedule always runs. With a large `schedules:` it explores for that long:
  ///
  /// ```swift
  /// let result = await explore(.pct(schedules: 1_000_000, depth: 2).forAtMost(.seconds(30))) {
  ///   await twoReloads()
  /// }
  /// print(result.schedulesRun)   // however many fitted in 30 seconds
  /// ```
  ///
  /// `LOCKSTEP_EXPLORE_TIME` (`90s`, `5m`, `1h`) gives every exploration of the process a time
  /// budget; when both are set, the shorter one counts. A duration of zero or less is reported at
  /// the `explore` call, and nothing runs.
  ///
  /// - Parameter duration: The most real time to explore for, shrinking and replaying a failure
  ///   aside.
  public func forAtMost(_ duration: Duration) -> Self {
    Self(kind: kind, timeBudget: timeBudget.map { min($0, duration) } ?? duration)
  }

  /// `random(schedules: 1000, seed: 42)`, and so on.
  ///
  /// ```swift
  /// print(ExplorationStrategy.pct())   // "pct(schedules: 1000, depth: 3, seed: …)"
  /// ```
  public var description: String {
    let text =
      switch kind {
      case .random(let schedules, let seed): "random(schedules: \(schedules), seed: \(seed))"
      case .pct(let schedules, let depth, let seed):
        "pct(schedules: \(schedules), depth: \(depth), seed: \(seed))"
      case .exhaustive(let maxPreemptions, let limit):
        "exhaustive(maxPreemptions: \(maxPreemptions), limit: \(limit))"
      case .replay(_, let text): "replay(\"\(text)\")"
      }
    return text + (timeBudget.map { ".forAtMost(\($0.codeText))" } ?? "")
  }
}

extension Duration {
  /// The duration as Swift code: `.seconds(30)`, `.milliseconds(500)`, `.nanoseconds(1)`.
  var codeText: String {
    let (seconds, attoseconds) = components
    if attoseconds == 0 { return ".seconds(\(seconds))" }
    let nanoseconds = wholeNanoseconds
    if nanoseconds % 1_000_000 == 0 { return ".milliseconds(\(nanoseconds / 1_000_000))" }
    return ".nanoseconds(\(nanoseconds))"
  }
}

extension ExplorationStrategy {
  /// Whether it replays a token.
  var isReplay: Bool {
    if case .replay = kind { return true }
    return false
  }

  /// Whether it enumerates a tree of schedules, each of which should run once.
  var isExhaustive: Bool {
    if case .exhaustive = kind { return true }
    return false
  }

  /// What is wrong with the strategy's parameters, or `nil`: a parameter that cannot work is
  /// reported, never corrected.
  var problem: String? {
    var problems: [String] = []
    switch kind {
    case .random(let schedules, _):
      if schedules < 1 { problems.append("schedules: \(schedules) must be at least 1") }
    case .pct(let schedules, let depth, _):
      if schedules < 1 { problems.append("schedules: \(schedules) must be at least 1") }
      if depth < 1 {
        problems.append("depth: \(depth) must be at least 1 (1 tries each order of the tasks)")
      }
    case .exhaustive(let maxPreemptions, let limit):
      if maxPreemptions < 0 {
        problems.append(
          "maxPreemptions: \(maxPreemptions) must be at least 0 (0 still tries every order of "
            + "tasks that only interleave at their awaits)")
      }
      if limit < 1 { problems.append("limit: \(limit) must be at least 1") }
    case .replay:
      break
    }
    if let timeBudget, timeBudget <= .zero {
      problems.append("forAtMost(\(timeBudget.lockstepText)) must be more than zero")
    }
    return problems.isEmpty ? nil : problems.joined(separator: "; ")
  }

  /// The strategy as the environment asks for it: `schedules:` and `limit:` times its scale,
  /// `maxPreemptions:` plus its extra preemptions, and its time budget when shorter. A replay
  /// stays as it is: one schedule.
  func applying(_ environment: ExplorationEnvironment) -> Self {
    let budget = [timeBudget, environment.timeBudget].compactMap { $0 }.min()
    switch kind {
    case .random(let schedules, let seed):
      return Self(kind: .random(schedules: environment.scaled(schedules), seed: seed), timeBudget: budget)
    case .pct(let schedules, let depth, let seed):
      return Self(
        kind: .pct(schedules: environment.scaled(schedules), depth: depth, seed: seed),
        timeBudget: budget)
    case .exhaustive(let maxPreemptions, let limit):
      return Self(
        kind: .exhaustive(
          maxPreemptions: maxPreemptions + environment.extraPreemptions,
          limit: environment.scaled(limit)),
        timeBudget: budget)
    case .replay:
      return self
    }
  }

  /// The strategy's schedules, for the explorer loop; with a shard, only that shard's part of
  /// them (a replay runs its token in every shard).
  func makeScheduleStrategy(injectsCancellation: Bool, shard: ExplorationShard? = nil)
    -> any ScheduleStrategy
  {
    switch kind {
    case .random(let schedules, let seed):
      RandomStrategy(
        schedules: schedules, seed: seed, injectsCancellation: injectsCancellation, shard: shard)
    case .pct(let schedules, let depth, let seed):
      PCTStrategy(
        schedules: schedules, depth: depth, seed: seed, injectsCancellation: injectsCancellation,
        shard: shard)
    case .exhaustive(let maxPreemptions, let limit):
      ExhaustiveStrategy(
        maxPreemptions: maxPreemptions, limit: limit, injectsCancellation: injectsCancellation,
        shard: shard)
    case .replay(let token, let text):
      ReplayStrategy(token: token, text: text)
    }
  }
}
