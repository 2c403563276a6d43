/// One part of an exploration split over several processes: shard `index` of `count`, set with
/// `LOCKSTEP_SHARD=index/count` (from `1/count` to `count/count`). The shards' schedules do not
/// overlap, and a token replays in any shard; see <doc:FindingRaces#Explore-at-CI-scale>.
///
/// ```swift
/// // LOCKSTEP_SHARD=2/4 swift test --filter ReaderTests
/// let result = await explore(.pct(schedules: 500)) { await twoReloads() }
/// print(result.shard as Any)   // Optional(2/4)
/// ```
public struct ExplorationShard: Sendable, Hashable, CustomStringConvertible {
  /// Which shard this is, from 1 to ``count``.
  public let index: Int
  /// How many shards the exploration is split into.
  public let count: Int

  init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  /// `index/count`, as `LOCKSTEP_SHARD` writes it: `"2/4"`.
  public var description: String { "\(index)/\(count)" }

  /// Whether the part numbered `number` (from 0: a subtree, or a schedule number minus 1) is this
  /// shard's.
  func owns(_ number: Int) -> Bool { number % count == index - 1 }
}
