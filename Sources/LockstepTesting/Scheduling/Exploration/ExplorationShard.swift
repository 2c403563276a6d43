/// One part of an exploration split over several processes: shard `index` of `count`, set with
/// `LOCKSTEP_SHARD=index/count` (from `1/count` to `count/count`).
///
/// Each shard explores its own part of the schedules, with no overlap, so that *n* CI jobs — or
/// *n* processes on one machine — explore *n* times as much as one:
///
/// - random and PCT: shard *k* of *n* runs schedules *k*, *k + n*, *k + 2n*, … of the
///   exploration's seed, as many as the strategy asks for. Each schedule number has a seed of its
///   own, so the shards' seeds are disjoint, and *n* shards of *s* schedules run the schedule
///   numbers of one unsharded exploration of *n · s*.
/// - exhaustive: the search tree is split at its first choice points into subtrees, numbered
///   depth-first; shard *k* searches subtrees *k − 1*, *k − 1 + n*, … To learn the shape of the
///   tree above the split, a shard also runs the first schedule of a few subtrees of other shards
///   (about one for every node just above the split); everything else it runs is its own, and
///   together the shards run every schedule within the bound.
/// - a replay, and tokens pinned with `pinned:`, run in every shard: a token names one schedule,
///   whatever the shard, so the token a shard prints replays in any shard and with no shard set.
///
/// ```swift
/// // LOCKSTEP_SHARD=2/4 swift test --filter ReaderTests
/// let result = await explore(.pct(schedules: 500)) { await twoReloads() }
/// print(result.shard as Any)   // Optional(2/4)
/// ```
public struct ExplorationShard: Sendable, Hashable, CustomStringConvertible {
  /// Which shard this is, from 1 to ``count``.
  ///
  /// ```swift
  /// if let shard = result.shard { print("shard \(shard.index) of \(shard.count)") }
  /// ```
  public let index: Int
  /// How many shards the exploration is split into.
  ///
  /// ```swift
  /// if let shard = result.shard { print("\(shard.count) processes explore this test") }
  /// ```
  public let count: Int

  init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  /// `index/count`, as `LOCKSTEP_SHARD` writes it: `"2/4"`.
  ///
  /// ```swift
  /// print(result.shard?.description ?? "not sharded")   // "2/4"
  /// ```
  public var description: String { "\(index)/\(count)" }

  /// Whether the part numbered `number` (from 0: a subtree, or a schedule number minus 1) is this
  /// shard's.
  func owns(_ number: Int) -> Bool { number % count == index - 1 }
}
