/// Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010).
///
/// Every task gets a random priority when it first becomes ready, above `depth`; the ready job of
/// the highest-priority task runs. At `depth - 1` choice points drawn uniformly from the expected
/// length of the schedule, the task picked there drops to a priority below all others (the i-th
/// change point gives priority i). A bug that needs `depth` ordering constraints between `n` tasks
/// in a schedule of `k` choice points is found by one schedule with probability at least
/// 1 / (n · k^(depth − 1)).
struct PCTPicker: SchedulePicker {
  private var generator: SplitMix64
  private var priorities: [Int: Double] = [:]
  /// The choice-point numbers where priorities change, each with its new (low) priority.
  private var changePoints: [Int: Double] = [:]
  private var step = 0
  private let depth: Int
  private(set) var record = ScheduleRecord()

  /// - Parameter expectedLength: The number of choice points a schedule is expected to have.
  init(seed: UInt64, depth: Int, expectedLength: Int) {
    generator = SplitMix64(seed: seed)
    self.depth = max(depth, 1)
    let length = max(expectedLength, 1)
    var points: Set<Int> = []
    let wanted = min(self.depth - 1, length)
    while points.count < wanted { points.insert(generator.next(below: length)) }
    for (order, point) in points.sorted().enumerated() {
      changePoints[point] = Double(wanted - order)
    }
  }

  mutating func reuse(_ empty: ScheduleRecord) {
    if record.count == 0 { record = empty }
  }

  mutating func pick(among tasks: [Int], previous: Int, step jobStep: Int) -> Int {
    for task in tasks where priorities[task] == nil {
      // Above every change-point priority (1 … depth − 1), distinct with overwhelming odds.
      priorities[task] = Double(depth) + Double(generator.next() >> 11) / Double(1 << 53)
    }
    var index = highest(among: tasks)
    if let lowered = changePoints[step] {
      priorities[tasks[index]] = lowered
      index = highest(among: tasks)
    }
    step += 1
    record.append(index, among: tasks, previous: previous, step: jobStep)
    return index
  }

  private func highest(among tasks: [Int]) -> Int {
    var best = 0
    for index in tasks.indices.dropFirst()
    where priorities[tasks[index]]! > priorities[tasks[best]]! {
      best = index
    }
    return best
  }
}
