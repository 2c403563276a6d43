/// Chooses which ready job runs next during exploration, and records its choices so that a
/// schedule can be replayed, enumerated and shrunk.
///
/// The scheduler asks only at a *choice point*: a step with two or more ready jobs. `tasks` are the
/// run-local task numbers of the ready jobs, oldest first (0 for a job that is not a task);
/// `previous` is the task whose job ran last.
protocol SchedulePicker {
  mutating func pick(among tasks: [Int], previous: Int) -> Int
  /// The choices made so far.
  var record: ScheduleRecord { get }
}

/// One choice point of a schedule.
struct ChoicePoint: Equatable, Sendable {
  /// The task numbers of the ready jobs, oldest first.
  let tasks: [Int]
  /// The task whose job ran just before.
  let previous: Int
  /// The index picked.
  let chosen: Int

  /// The index that continues the previous task when it is ready, else the oldest job: the choice
  /// that neither preempts nor switches without need.
  static func defaultIndex(among tasks: [Int], previous: Int) -> Int {
    guard previous != 0, let index = tasks.firstIndex(of: previous) else { return 0 }
    return index
  }

  /// Whether picking `index` preempts the previous task: it was ready and another one runs.
  static func preempts(_ index: Int, among tasks: [Int], previous: Int) -> Bool {
    previous != 0 && tasks.contains(previous) && tasks[index] != previous
  }

  var isPreemption: Bool { Self.preempts(chosen, among: tasks, previous: previous) }
  var isSwitch: Bool { tasks[chosen] != previous }
  var isDefault: Bool { chosen == Self.defaultIndex(among: tasks, previous: previous) }
}

/// The choices of one schedule.
struct ScheduleRecord: Equatable, Sendable {
  var points: [ChoicePoint] = []

  var choices: [Int] { points.map(\.chosen) }
  var preemptions: Int { points.count { $0.isPreemption } }
  var contextSwitches: Int { points.count { $0.isSwitch } }

  mutating func append(_ index: Int, among tasks: [Int], previous: Int) {
    points.append(ChoicePoint(tasks: tasks, previous: previous, chosen: index))
  }
}

/// Picks uniformly at random among the ready jobs.
struct RandomPicker: SchedulePicker {
  private var generator: SplitMix64
  private(set) var record = ScheduleRecord()

  init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  mutating func pick(among tasks: [Int], previous: Int) -> Int {
    let index = generator.next(below: tasks.count)
    record.append(index, among: tasks, previous: previous)
    return index
  }
}

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

  mutating func pick(among tasks: [Int], previous: Int) -> Int {
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
    record.append(index, among: tasks, previous: previous)
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

/// Follows a given list of choices, then the default choice; used to replay, to enumerate
/// schedules depth-first and to shrink. A choice that no longer fits (the run took another path)
/// falls back to the default choice and marks the schedule as diverged.
struct GuidedPicker: SchedulePicker {
  /// The index to pick at each choice point; `nil` means the default choice.
  private let plan: [Int?]
  private(set) var record = ScheduleRecord()
  private(set) var diverged = false

  init(plan: [Int?]) { self.plan = plan }

  mutating func pick(among tasks: [Int], previous: Int) -> Int {
    let position = record.points.count
    var index = ChoicePoint.defaultIndex(among: tasks, previous: previous)
    if position < plan.count, let planned = plan[position] {
      if planned < tasks.count { index = planned } else { diverged = true }
    }
    record.append(index, among: tasks, previous: previous)
    return index
  }
}
