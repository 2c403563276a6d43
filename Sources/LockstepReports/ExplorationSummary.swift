/// What one `explore` call at CI scale (or a failing one) leaves in the `LOCKSTEP_REPORTS`
/// folder: a small JSON file beside the picture of its failure, that `lockstep-report` merges
/// over the shards of a CI matrix. See the *Finding races* article for the fields.
///
/// The format is versioned: ``version`` is 1. Adding a field keeps the version (readers ignore
/// fields they do not know, and a field they know but a file lacks reads as absent); renaming or
/// removing a field, or changing what one means, raises it.
///
/// ```swift
/// let data = try Data(contentsOf: url)
/// let summary = try JSONDecoder().decode(ExplorationSummary.self, from: data)
/// print(summary.schedulesRun, summary.complete)
/// ```
public struct ExplorationSummary: Codable, Sendable, Equatable {
  /// The version of the format this library writes and reads.
  public static let currentVersion = 1
  /// The file name of every summary starts with this and ends with `.json`.
  public static let fileNamePrefix = "lockstep-summary-"

  /// A part of an exploration split over processes: shard `index` of `count`.
  public struct Shard: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Which shard, from 1 to ``count``.
    public var index: Int
    /// How many shards there are.
    public var count: Int

    /// Shard `index` of `count`.
    public init(index: Int, count: Int) {
      self.index = index
      self.count = count
    }

    /// `2/4`, as `LOCKSTEP_SHARD` writes it.
    public var description: String { "\(index)/\(count)" }
  }

  /// The strategy's parameters as it ran; each is absent where the strategy has none.
  public struct Parameters: Codable, Sendable, Equatable {
    /// `schedules:` of a random or PCT strategy.
    public var schedules: Int?
    /// `depth:` of a PCT strategy.
    public var depth: Int?
    /// `seed:` of a random or PCT strategy.
    public var seed: UInt64?
    /// `maxPreemptions:` of an exhaustive search.
    public var maxPreemptions: Int?
    /// `limit:` of an exhaustive search.
    public var limit: Int?
    /// The time budget, in seconds.
    public var timeBudgetSeconds: Double?

    /// The parameters given; the others are absent.
    public init(
      schedules: Int? = nil, depth: Int? = nil, seed: UInt64? = nil, maxPreemptions: Int? = nil,
      limit: Int? = nil, timeBudgetSeconds: Double? = nil
    ) {
      self.schedules = schedules
      self.depth = depth
      self.seed = seed
      self.maxPreemptions = maxPreemptions
      self.limit = limit
      self.timeBudgetSeconds = timeBudgetSeconds
    }
  }

  /// How far an exhaustive search stopped before its end got (unsharded only).
  public struct Search: Codable, Sendable, Equatable {
    /// An estimate of all its schedules: exact when nothing is left, an order of magnitude
    /// otherwise.
    public var estimatedSchedules: Int
    /// At least this many schedules are left: an exact lower bound.
    public var atLeastLeft: Int

    /// How far a search got.
    public init(estimatedSchedules: Int, atLeastLeft: Int) {
      self.estimatedSchedules = estimatedSchedules
      self.atLeastLeft = atLeastLeft
    }
  }

  /// The failing schedule.
  public struct Failure: Codable, Sendable, Equatable {
    /// The token that replays it: `.replay("L2.…")`.
    public var token: String
    /// Which schedule of the exploration (or of its shard) failed, from 1; 0 for a pinned token.
    public var schedule: Int
    /// The shard that found it, if sharded.
    public var shard: Shard?
    /// The first line of the first failure.
    public var message: String
    /// The failing schedule's number among all the exploration's schedules, from 1: the
    /// ``schedule`` the unsharded exploration gives it (random and PCT shard *k* of *n* runs
    /// numbers *k*, *k + n*, …). Absent for a pinned token, a sharded exhaustive search (see
    /// ``subtree``) and summaries of older Lockstep versions.
    public var overallSchedule: Int?
    /// For a sharded exhaustive search, the subtree the failing schedule lies in, numbered from 0
    /// in depth-first order — the same numbering in every shard, so the failure in the lowest
    /// subtree is the one the unsharded search meets first.
    public var subtree: Int?
    /// For a sharded exhaustive search, the failing schedule's number among its subtree's
    /// schedules, from 1: with the shards' ``ExplorationSummary/subtreeSchedules``, a merge finds
    /// its ``overallSchedule``.
    public var subtreeSchedule: Int?
    /// For `checkLinearizability`, the scenario that failed first, from 1.
    public var scenario: Int?

    /// A failure with its token.
    public init(
      token: String, schedule: Int, shard: Shard?, message: String, overallSchedule: Int? = nil,
      subtree: Int? = nil, subtreeSchedule: Int? = nil, scenario: Int? = nil
    ) {
      self.subtreeSchedule = subtreeSchedule
      self.token = token
      self.schedule = schedule
      self.shard = shard
      self.message = message
      self.overallSchedule = overallSchedule
      self.subtree = subtree
      self.scenario = scenario
    }
  }

  /// The version of the format the file was written in (``currentVersion`` when this library
  /// wrote it).
  public var version: Int
  /// The Swift Testing test's name, or the call site under XCTest and without a framework.
  public var test: String
  /// Where `explore` was called: `ReaderTests/ReaderTests.swift:42`.
  public var callSite: String
  /// The strategy as written: `pct(schedules: 200, depth: 2, seed: 1)`.
  public var strategy: String
  /// The strategy as it ran, after the environment scaled it.
  public var strategyAsRun: String
  /// `random`, `pct`, `exhaustive` or `replay`.
  public var kind: String
  /// The parameters of the strategy as it ran.
  public var parameters: Parameters
  /// The environment variables that changed the strategy: `LOCKSTEP_EXPLORE_SCALE=100`.
  public var settings: [String]
  /// Whether cancellations were injected (`cancellation: .atLockstepWaits`).
  public var cancellation: Bool
  /// This process's shard (`LOCKSTEP_SHARD`), or `nil`.
  public var shard: Shard?
  /// Schedules run, not counting the runs that shrank and replayed a failure.
  public var schedulesRun: Int
  /// Of ``schedulesRun``, those a sharded exhaustive search ran in other shards' subtrees only to
  /// learn the shape of the search: over all shards, the search's schedules are the sum of
  /// `schedulesRun − shapeSchedules`.
  public var shapeSchedules: Int
  /// How many of the schedules run differed from each other.
  public var distinctSchedules: Int
  /// The real time the exploration took, in seconds.
  public var elapsedSeconds: Double
  /// Whether every schedule asked for (of this shard) ran.
  public var complete: Bool
  /// Whether the time budget stopped it.
  public var ranOutOfTime: Bool
  /// For an unsharded exhaustive search stopped before its end, how far it got.
  public var search: Search?
  /// For a shard of an exhaustive search, the schedules it ran in each subtree of the search, by
  /// subtree number from 0 (0 for the other shards' subtrees), up to the last subtree it reached.
  public var subtreeSchedules: [Int]?
  /// The failure, or `nil` when every schedule passed.
  public var failure: Failure?
  /// An issue the exploration recorded that is not a failing schedule (it could not run, a replay
  /// left its token's schedule, a check's operations cannot be judged), or `nil`; a merge counts
  /// it as failed.
  public var problem: String?
  /// Whether Swift's hashing was deterministic in the process (a token replays exactly).
  public var hashingDeterministic: Bool
  /// Whether the runs read virtual now (not `LOCKSTEP_REAL_NOW=1`).
  public var virtualTime: Bool

  /// A summary of the ``currentVersion``.
  public init(
    test: String, callSite: String, strategy: String, strategyAsRun: String, kind: String,
    parameters: Parameters, settings: [String] = [], cancellation: Bool = false,
    shard: Shard? = nil, schedulesRun: Int, shapeSchedules: Int = 0, distinctSchedules: Int,
    elapsedSeconds: Double, complete: Bool, ranOutOfTime: Bool = false, search: Search? = nil,
    subtreeSchedules: [Int]? = nil, failure: Failure? = nil, problem: String? = nil,
    hashingDeterministic: Bool = true, virtualTime: Bool = true
  ) {
    self.subtreeSchedules = subtreeSchedules
    self.problem = problem
    version = Self.currentVersion
    self.test = test
    self.callSite = callSite
    self.strategy = strategy
    self.strategyAsRun = strategyAsRun
    self.kind = kind
    self.parameters = parameters
    self.settings = settings
    self.cancellation = cancellation
    self.shard = shard
    self.schedulesRun = schedulesRun
    self.shapeSchedules = shapeSchedules
    self.distinctSchedules = distinctSchedules
    self.elapsedSeconds = elapsedSeconds
    self.complete = complete
    self.ranOutOfTime = ranOutOfTime
    self.search = search
    self.failure = failure
    self.hashingDeterministic = hashingDeterministic
    self.virtualTime = virtualTime
  }

  /// The schedules this summary adds to the whole exploration: ``schedulesRun`` less
  /// ``shapeSchedules``.
  public var ownSchedules: Int { max(0, schedulesRun - shapeSchedules) }
}
