/// The tokens pinned with `explore(_:pinned:…)`, replayed one after another — each exactly as a
/// ``ReplayStrategy`` would, checked against what it recorded — before the strategy it wraps
/// explores new schedules. Every shard replays them all.
struct PinnedReplays: ScheduleStrategy {
  let tokens: [ReplayToken]
  private var strategy: any ScheduleStrategy
  /// How many tokens have been planned.
  private var replayed = 0
  /// Whether the wrapped strategy has been asked for its first schedule.
  private var exploring = false

  init(_ tokens: [ReplayToken], then strategy: any ScheduleStrategy) {
    self.tokens = tokens
    self.strategy = strategy
  }

  var shrinksFailures: Bool { strategy.shrinksFailures }
  var progress: SearchProgress? { strategy.progress }
  var subtreeSchedules: [Int]? { strategy.subtreeSchedules }

  mutating func next(after previous: ScheduleReport?) -> StrategyStep {
    if exploring { return strategy.next(after: previous) }
    guard replayed < tokens.count else {
      exploring = true
      return strategy.next(after: nil)
    }
    let token = tokens[replayed]
    replayed += 1
    return .run(
      PlannedSchedule(
        picker: GuidedPicker(replaying: token), cancelAtWait: token.cancelAtWait, replaying: token,
        pinned: replayed - 1))
  }
}
