/// How ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)`` chooses the
/// schedules it runs. A parameter that cannot work is reported at the `explore` call, and nothing
/// runs; the environment of the test process can scale every strategy. See
/// <doc:FindingRaces#Choose-a-strategy>.
///
/// ```swift
/// await explore(.random(schedules: 500, seed: 7)) { try await twoReloads() }
/// await explore(.pct(schedules: 500, depth: 2)) { try await twoReloads() }
/// await explore(.exhaustive(maxPreemptions: 2)) { try await twoReloads() }
/// await explore(.replay("L2.AQAIAkRVAgAA-vMU9srOaw")) { try await twoReloads() }
/// await explore(.replayUpToCrash("L2.AAAGAkUFAgAAIwY", atStep: 8)) { try await twoTakers() }
/// ```
public struct ExplorationStrategy: Sendable, CustomStringConvertible {
  enum Kind: Sendable {
    case random(schedules: Int, seed: UInt64)
    case pct(schedules: Int, depth: Int, seed: UInt64)
    case exhaustive(maxPreemptions: Int, limit: Int)
    /// `crashStep`: for ``replayUpToCrash(_:atStep:)``, the step to stop before.
    case replay(ReplayToken?, text: String, crashStep: Int?)
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
  /// - Parameters:
  ///   - schedules: How many schedules to run at most; at least 1 (per shard, when sharded).
  ///   - seed: The seed of the whole exploration; by default ``Interleavings/sessionSeed``
  ///     (`LOCKSTEP_SEED`, else 1).
  public static func random(schedules: Int = 1_000, seed: UInt64 = Interleavings.sessionSeed)
    -> Self
  {
    Self(kind: .random(schedules: schedules, seed: seed))
  }

  /// Probabilistic concurrency testing: every task gets a random priority, the highest-priority
  /// ready task runs, and at `depth − 1` random points the running task drops to the lowest
  /// priority.
  ///
  /// - Parameters:
  ///   - schedules: How many schedules to run at most; at least 1 (per shard, when sharded).
  ///   - depth: The bug depth to aim for, at least 1; 2 and 3 find most races.
  ///   - seed: The seed of the whole exploration; by default ``Interleavings/sessionSeed``.
  public static func pct(
    schedules: Int = 1_000, depth: Int = 3, seed: UInt64 = Interleavings.sessionSeed
  ) -> Self {
    Self(kind: .pct(schedules: schedules, depth: depth, seed: seed))
  }

  /// Every schedule with at most `maxPreemptions` preemptions (switches away from a task that
  /// could have gone on running), depth-first.
  ///
  /// - Parameters:
  ///   - maxPreemptions: The preemption bound; 0 or more.
  ///   - limit: Stop after this many schedules (at least 1; per shard, when sharded).
  public static func exhaustive(maxPreemptions: Int = 2, limit: Int = 100_000) -> Self {
    Self(kind: .exhaustive(maxPreemptions: maxPreemptions, limit: limit))
  }

  /// Runs exactly the schedule a failing exploration printed, and says where it diverged if it
  /// does not follow it (``ReplayDivergence``).
  ///
  /// - Parameter token: The replay token, as printed.
  public static func replay(_ token: String) -> Self {
    Self(kind: .replay(ReplayToken(token), text: token, crashStep: nil))
  }

  /// Runs exactly the schedule of `token`.
  public static func replay(_ token: ReplayToken) -> Self {
    Self(kind: .replay(token, text: token.description, crashStep: nil))
  }

  /// Replays the schedule of a crash and stops before the step that crashed, so that the process
  /// survives: the failure reported is the timeline up to the crash.
  ///
  /// Paste what the crash report printed. It stops there even once the crash is fixed: check a fix
  /// with ``replay(_:)-(String)``. See <doc:FindingRaces#When-the-code-under-test-crashes>.
  ///
  /// - Parameters:
  ///   - token: The token the crash report printed.
  ///   - step: The step that crashed, as the crash report printed it (from 1, as timelines number
  ///     steps).
  public static func replayUpToCrash(_ token: String, atStep step: Int) -> Self {
    Self(kind: .replay(ReplayToken(token), text: token, crashStep: step))
  }

  /// The same strategy, stopping once it has spent `duration` of real time (the first schedule
  /// always runs); see <doc:FindingRaces#Explore-at-CI-scale>.
  ///
  /// - Parameter duration: The most real time to explore for, shrinking and replaying a failure
  ///   aside; more than zero.
  public func forAtMost(_ duration: Duration) -> Self {
    Self(kind: kind, timeBudget: timeBudget.map { min($0, duration) } ?? duration)
  }

  /// `random(schedules: 1000, seed: 42)`, and so on.
  public var description: String {
    let text =
      switch kind {
      case .random(let schedules, let seed): "random(schedules: \(schedules), seed: \(seed))"
      case .pct(let schedules, let depth, let seed):
        "pct(schedules: \(schedules), depth: \(depth), seed: \(seed))"
      case .exhaustive(let maxPreemptions, let limit):
        "exhaustive(maxPreemptions: \(maxPreemptions), limit: \(limit))"
      case .replay(_, let text, nil): "replay(\"\(text)\")"
      case .replay(_, let text, let step?): "replayUpToCrash(\"\(text)\", atStep: \(step))"
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
    case .replay(let token, let text, let step?):
      if step < 1 { problems.append("atStep: \(step) must be at least 1 (steps are numbered from 1)") }
      if token?.check?.whole != nil {
        problems.append(
          "\"\(text)\" is the token of a whole schedule, which did not crash: replay it with "
            + ".replay(\"\(text)\"); replayUpToCrash takes the token of a crash report")
      }
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
    case .replay(let token, let text, let crashStep):
      ReplayStrategy(token: token, text: text, crashStep: crashStep)
    }
  }
}
