/// One verdict over the summaries of a CI matrix: the explorations grouped by test, call site and
/// strategy, their schedules summed over the shards, the shards missing, whether the shards
/// together covered what was asked, and every failure with its token and shard. Pure: it reads no
/// file (``SummaryFiles`` does).
///
/// ```swift
/// let verdict = MatrixVerdict(summaries)
/// print(verdict.table)
/// exit(verdict.passed ? 0 : 1)
/// ```
public struct MatrixVerdict: Sendable {
  /// One exploration over all its shards.
  public struct Exploration: Sendable {
    /// The test's name, or the call site.
    public let test: String
    /// Where `explore` was called: `ReaderTests/ReaderTests.swift:42`.
    public let callSite: String
    /// The strategy as written.
    public let strategy: String
    /// The strategy as it ran (the first shard's), after the environment scaled it.
    public let strategyAsRun: String
    /// `random`, `pct`, `exhaustive` or `replay`.
    public let kind: String
    /// How many shards it was split into; `nil` when not sharded.
    public let shardCount: Int?
    /// The summaries, in shard order.
    public let summaries: [ExplorationSummary]
    /// Schedules over all shards, without the ones a shard ran only for the search's shape.
    public let schedules: Int
    /// Shards `1…n` of which no summary was found.
    public let missingShards: [Int]
    /// Shards of which more than one summary was found (a parameterized test, or several runs
    /// written to one folder): all of them are counted.
    public let repeatedShards: [Int]
    /// The longest time one shard took, in seconds.
    public let longestSeconds: Double
    /// The failures, in the order the unsharded exploration meets them
    /// (``ExplorationSummary/Failure/precedes(_:)``).
    public let failures: [ExplorationSummary.Failure]
    /// The failure the unsharded exploration would report: the first it meets.
    public var firstFailure: ExplorationSummary.Failure? { failures.first }
    /// The problems (issues that are not a failing schedule), in shard order.
    public var problems: [String] { summaries.compactMap(\.problem) }

    /// Whether every shard is here and each ran all it was asked to: for an exhaustive search
    /// split over shards, whether the search is complete.
    public var covered: Bool {
      missingShards.isEmpty && failures.isEmpty && problems.isEmpty
        && summaries.allSatisfy(\.complete)
    }

    /// Why it did not cover what was asked: `shard 3 missing`, `time budget ran out in shards 1,
    /// 2`; `nil` when it did.
    public var shortfall: String? {
      var reasons: [String] = []
      if !missingShards.isEmpty {
        reasons.append(
          "shard\(missingShards.count == 1 ? "" : "s") "
            + missingShards.map { "\($0)" }.joined(separator: ", ") + " missing")
      }
      if !failures.isEmpty || !problems.isEmpty { reasons.append("failed") }
      let stopped = summaries.filter { !$0.complete && $0.failure == nil && $0.problem == nil }
      let timedOut = stopped.filter(\.ranOutOfTime)
      if !timedOut.isEmpty { reasons.append("time budget ran out" + Self.inShards(timedOut)) }
      let limited = stopped.filter { !$0.ranOutOfTime }
      if !limited.isEmpty { reasons.append("stopped before the end" + Self.inShards(limited)) }
      if reasons.isEmpty { return nil }
      return reasons.joined(separator: "; ")
    }

    /// For an unsharded exhaustive search stopped early: how far it got.
    public var search: ExplorationSummary.Search? {
      summaries.count == 1 ? summaries[0].search : nil
    }

    private static func inShards(_ summaries: [ExplorationSummary]) -> String {
      let shards = summaries.compactMap(\.shard?.index)
      guard !shards.isEmpty else { return "" }
      return " in shard\(shards.count == 1 ? "" : "s") "
        + shards.map { "\($0)" }.joined(separator: ", ")
    }
  }

  /// The explorations, in order of test, call site and strategy.
  public let explorations: [Exploration]

  /// Merges `summaries`: those of one test, call site, strategy (as written) and shard count are
  /// one exploration.
  public init(_ summaries: [ExplorationSummary]) {
    struct Key: Hashable, Comparable {
      let test: String
      let callSite: String
      let strategy: String
      let shardCount: Int

      static func < (a: Key, b: Key) -> Bool {
        (a.test, a.callSite, a.strategy, a.shardCount) < (b.test, b.callSite, b.strategy, b.shardCount)
      }
    }
    let groups = Dictionary(grouping: summaries) {
      Key(test: $0.test, callSite: $0.callSite, strategy: $0.strategy, shardCount: $0.shard?.count ?? 0)
    }
    explorations = groups.keys.sorted().map { key in
      let members = groups[key, default: []].sorted { ($0.shard?.index ?? 0) < ($1.shard?.index ?? 0) }
      let count = key.shardCount
      let present = members.compactMap(\.shard?.index)
      let missing = count == 0 ? [] : (1...count).filter { !present.contains($0) }
      let repeated = Set(present.filter { index in present.count { $0 == index } > 1 }).sorted()
      return Exploration(
        test: key.test, callSite: key.callSite, strategy: key.strategy,
        strategyAsRun: members.first?.strategyAsRun ?? key.strategy,
        kind: members.first?.kind ?? "", shardCount: count == 0 ? nil : count,
        summaries: members, schedules: members.reduce(0) { $0 + $1.ownSchedules },
        missingShards: missing, repeatedShards: repeated,
        longestSeconds: members.map(\.elapsedSeconds).max() ?? 0,
        failures: members.compactMap(\.failure).sorted { $0.precedes($1) }.map {
          $0.numbered(among: members)
        })
    }
  }

  /// Whether no exploration failed or had a problem, and no shard is missing.
  public var passed: Bool {
    explorations.allSatisfy { $0.failures.isEmpty && $0.problems.isEmpty && $0.missingShards.isEmpty }
  }

  /// Schedules over every exploration and shard.
  public var schedules: Int { explorations.reduce(0) { $0 + $1.schedules } }
}
