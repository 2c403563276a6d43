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
public struct ExplorationStrategy: Sendable, CustomStringConvertible {
  enum Kind: Sendable {
    case random(schedules: Int, seed: UInt64)
    case pct(schedules: Int, depth: Int, seed: UInt64)
    case exhaustive(maxPreemptions: Int, limit: Int)
    case replay(ReplayToken?, text: String)
  }

  let kind: Kind

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
  ///   - schedules: How many schedules to run at most; at least 1.
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
  ///   - schedules: How many schedules to run at most; at least 1.
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
  /// schedules there are and how many ran.
  ///
  /// ```swift
  /// let result = await explore(.exhaustive(maxPreemptions: 2)) { try await model.check() }
  /// #expect(result.isComplete)
  /// ```
  ///
  /// - Parameters:
  ///   - maxPreemptions: The preemption bound; 0 or more.
  ///   - limit: Stop after this many schedules (at least 1); the result then says the search was
  ///     incomplete.
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

  /// `random(schedules: 1000, seed: 42)`, and so on.
  ///
  /// ```swift
  /// print(ExplorationStrategy.pct())   // "pct(schedules: 1000, depth: 3, seed: …)"
  /// ```
  public var description: String {
    switch kind {
    case .random(let schedules, let seed): "random(schedules: \(schedules), seed: \(seed))"
    case .pct(let schedules, let depth, let seed):
      "pct(schedules: \(schedules), depth: \(depth), seed: \(seed))"
    case .exhaustive(let maxPreemptions, let limit):
      "exhaustive(maxPreemptions: \(maxPreemptions), limit: \(limit))"
    case .replay(_, let text): "replay(\"\(text)\")"
    }
  }
}

extension ExplorationStrategy {
  /// Whether it replays a token.
  var isReplay: Bool {
    if case .replay = kind { return true }
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
    return problems.isEmpty ? nil : problems.joined(separator: "; ")
  }

  /// The strategy's schedules, for the explorer loop.
  func makeScheduleStrategy(injectsCancellation: Bool) -> any ScheduleStrategy {
    switch kind {
    case .random(let schedules, let seed):
      RandomStrategy(schedules: schedules, seed: seed, injectsCancellation: injectsCancellation)
    case .pct(let schedules, let depth, let seed):
      PCTStrategy(
        schedules: schedules, depth: depth, seed: seed, injectsCancellation: injectsCancellation)
    case .exhaustive(let maxPreemptions, let limit):
      ExhaustiveStrategy(
        maxPreemptions: maxPreemptions, limit: limit, injectsCancellation: injectsCancellation)
    case .replay(let token, let text):
      ReplayStrategy(token: token, text: text)
    }
  }
}
