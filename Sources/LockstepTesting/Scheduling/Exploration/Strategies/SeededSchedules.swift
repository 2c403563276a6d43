/// The schedules of a seeded strategy (random, PCT): schedule *n*'s picker seed derives from the
/// exploration's seed and *n* alone, so the same seed runs the same schedules; and, when
/// cancellation is injected, half of the schedules cancel a task at a Lockstep wait drawn
/// uniformly from the most waits a schedule has reached so far.
struct SeededSchedules {
  let schedules: Int
  let seed: UInt64
  let injectsCancellation: Bool
  private var cancelChooser: SplitMix64
  private var number = 0
  /// The most Lockstep waits and choice points a schedule has had so far.
  private(set) var mostWaits = 0
  private(set) var longestSchedule = 0

  init(schedules: Int, seed: UInt64, injectsCancellation: Bool) {
    self.schedules = schedules
    self.seed = seed
    self.injectsCancellation = injectsCancellation
    cancelChooser = SplitMix64(seed: seed ^ 0xC0FF_EE00_D15E_A5E5)
  }

  /// The seed of schedule `number` (from 1).
  func seed(ofSchedule number: Int) -> UInt64 {
    var seeds = SplitMix64(seed: seed &+ UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
    return seeds.next()
  }

  /// Takes in what the previous schedule did; then the next schedule, its picker made by
  /// `makePicker` from its seed, or done once every schedule ran.
  mutating func next(
    after previous: ScheduleReport?, makePicker: (_ seed: UInt64) -> any SchedulePicker
  ) -> StrategyStep {
    if let previous {
      mostWaits = max(mostWaits, previous.waits)
      longestSchedule = max(longestSchedule, previous.record.points.count)
    }
    guard number < schedules else { return .done(complete: true) }
    number += 1
    var cancelAt: Int?
    if injectsCancellation, mostWaits > 0, cancelChooser.next(below: 2) == 0 {
      cancelAt = cancelChooser.next(below: mostWaits)
    }
    return .run(PlannedSchedule(picker: makePicker(seed(ofSchedule: number)), cancelAtWait: cancelAt))
  }
}
