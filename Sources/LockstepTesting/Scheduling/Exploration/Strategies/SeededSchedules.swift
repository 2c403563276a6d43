/// The schedules of a seeded strategy (random, PCT): schedule *n*'s picker seed derives from the
/// exploration's seed and *n* alone, so the same seed runs the same schedules; and, when
/// cancellation is injected, half of the schedules cancel a task at a Lockstep wait drawn
/// uniformly from the most waits a schedule has reached so far.
///
/// With a shard *k* of *n*, it runs schedule numbers *k*, *k + n*, *k + 2n*, … — `schedules` of
/// them — so the shards' schedule numbers are disjoint, and so are their seeds: ``seed(ofSchedule:)``
/// is one-to-one (SplitMix64's state advances by an odd constant and its output mix is a
/// bijection).
struct SeededSchedules {
  let schedules: Int
  let seed: UInt64
  let injectsCancellation: Bool
  let shard: ExplorationShard?
  private var cancelChooser: SplitMix64
  /// How many schedules this strategy has planned.
  private var planned = 0
  /// The most Lockstep waits and choice points a schedule has had so far.
  private(set) var mostWaits = 0
  private(set) var longestSchedule = 0

  init(schedules: Int, seed: UInt64, injectsCancellation: Bool, shard: ExplorationShard? = nil) {
    self.schedules = schedules
    self.seed = seed
    self.injectsCancellation = injectsCancellation
    self.shard = shard
    cancelChooser = SplitMix64(seed: seed ^ 0xC0FF_EE00_D15E_A5E5)
  }

  /// The seed of schedule `number` (from 1).
  func seed(ofSchedule number: Int) -> UInt64 {
    var seeds = SplitMix64(seed: seed &+ UInt64(truncatingIfNeeded: number) &* 0x9E37_79B9_7F4A_7C15)
    return seeds.next()
  }

  /// The number (from 1) of the `planned`-th schedule (from 1) of this shard.
  func number(ofPlanned planned: Int) -> Int {
    guard let shard else { return planned }
    return (planned - 1) &* shard.count &+ shard.index
  }

  /// Takes in what the previous schedule did; then the next schedule, its picker made by
  /// `makePicker` from its seed, or done once every schedule ran.
  mutating func next(
    after previous: ScheduleReport?, makePicker: (_ seed: UInt64) -> any SchedulePicker
  ) -> StrategyStep {
    if let previous {
      mostWaits = max(mostWaits, previous.waits)
      longestSchedule = max(longestSchedule, previous.record.count)
    }
    guard planned < schedules else { return .done(complete: true) }
    planned += 1
    var cancelAt: Int?
    if injectsCancellation, mostWaits > 0, cancelChooser.next(below: 2) == 0 {
      cancelAt = cancelChooser.next(below: mostWaits)
    }
    let number = number(ofPlanned: planned)
    return .run(
      PlannedSchedule(
        picker: makePicker(seed(ofSchedule: number)), cancelAtWait: cancelAt, number: number))
  }
}
