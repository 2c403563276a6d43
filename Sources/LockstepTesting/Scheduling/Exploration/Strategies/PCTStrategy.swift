/// ``ExplorationStrategy/pct(schedules:depth:seed:)``: every schedule is a PCT schedule
/// (``PCTPicker``) whose change points are drawn from the longest schedule seen so far.
struct PCTStrategy: ScheduleStrategy {
  let depth: Int
  private var schedules: SeededSchedules

  init(
    schedules: Int, depth: Int, seed: UInt64, injectsCancellation: Bool,
    shard: ExplorationShard? = nil
  ) {
    self.depth = depth
    self.schedules = SeededSchedules(
      schedules: schedules, seed: seed, injectsCancellation: injectsCancellation, shard: shard)
  }

  mutating func next(after previous: ScheduleReport?) -> StrategyStep {
    let longest = max(schedules.longestSchedule, previous?.record.count ?? 0)
    return schedules.next(after: previous) { [depth] seed in
      PCTPicker(seed: seed, depth: depth, expectedLength: max(longest, 1))
    }
  }
}
