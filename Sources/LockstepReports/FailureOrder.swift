/// The order in which an exploration meets its failing schedules, the same whether it ran in one
/// process or split over shards: each shard stops at its own first failure, and of those the
/// unsharded exploration would have stopped at the one it meets first.
///
/// ```swift
/// let first = summaries.compactMap(\.failure).min { $0.precedes($1) }
/// print(first?.token ?? "no failure")   // the token the unsharded run reports
/// ```
extension ExplorationSummary.Failure {
  /// Whether the unsharded exploration meets this failure before `other`: a pinned token (every
  /// shard replays them first) before a new schedule; for `checkLinearizability`, the earlier
  /// scenario first; then the lower ``overallSchedule`` (random, PCT, unsharded), or the lower
  /// ``subtree`` (a sharded exhaustive search); ties go to the lower shard.
  public func precedes(_ other: Self) -> Bool {
    order < other.order
  }

  /// This failure of a sharded exhaustive search with its ``overallSchedule`` found from the
  /// summaries of the search's shards: the schedules of every subtree before its own, each
  /// counted by the shard that searched it to its end, and its number in its own subtree.
  /// Unchanged when it has one already, or when no shard searched a subtree before its own to its
  /// end (a shard is missing, or stopped early).
  public func numbered(among summaries: [ExplorationSummary]) -> Self {
    guard overallSchedule == nil, let subtree, let subtreeSchedule else { return self }
    var overall = subtreeSchedule
    for number in 0..<subtree {
      let sizes = summaries.compactMap { summary -> Int? in
        guard let counts = summary.subtreeSchedules, number < counts.count, counts[number] > 0 else {
          return nil
        }
        // A shard searched its last subtree to its end only if it completed.
        return number < counts.count - 1 || summary.complete ? counts[number] : nil
      }
      guard let size = sizes.max() else { return self }
      overall += size
    }
    var numbered = self
    numbered.overallSchedule = overall
    return numbered
  }

  private var order: (Int, Int, Int, Int, Int, Int) {
    (
      scenario ?? 0, schedule == 0 ? 0 : 1, overallSchedule ?? .max, subtree ?? .max,
      shard?.index ?? 0, schedule
    )
  }
}
