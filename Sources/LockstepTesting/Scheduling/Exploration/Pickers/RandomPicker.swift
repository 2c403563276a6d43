/// Picks uniformly at random among the ready jobs.
struct RandomPicker: SchedulePicker {
  private var generator: SplitMix64
  private(set) var record = ScheduleRecord()

  init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  mutating func reuse(_ empty: ScheduleRecord) {
    if record.count == 0 { record = empty }
  }

  mutating func pick(among tasks: [Int], previous: Int, step: Int) -> Int {
    let index = generator.next(below: tasks.count)
    record.append(index, among: tasks, previous: previous, step: step)
    return index
  }
}
