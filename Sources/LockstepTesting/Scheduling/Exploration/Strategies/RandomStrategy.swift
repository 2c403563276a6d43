/// ``ExplorationStrategy/random(schedules:seed:)``: every schedule picks uniformly at random.
struct RandomStrategy: ScheduleStrategy {
  private var schedules: SeededSchedules

  init(schedules: Int, seed: UInt64, injectsCancellation: Bool, shard: ExplorationShard? = nil) {
    self.schedules = SeededSchedules(
      schedules: schedules, seed: seed, injectsCancellation: injectsCancellation, shard: shard)
  }

  mutating func next(after previous: ScheduleReport?) -> StrategyStep {
    schedules.next(after: previous) { RandomPicker(seed: $0) }
  }
}
