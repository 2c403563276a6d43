/// One choice point of a schedule.
struct ChoicePoint: Equatable, Sendable {
  /// The task numbers of the ready jobs, oldest first.
  let tasks: [Int]
  /// The task whose job ran just before.
  let previous: Int
  /// The index picked.
  let chosen: Int
  /// The number (from 0) of the step that ran the picked job.
  var step = 0

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
  /// The task of the job picked.
  var chosenTask: Int { tasks[chosen] }
}

/// The choices of one schedule.
struct ScheduleRecord: Equatable, Sendable {
  var points: [ChoicePoint] = []

  var choices: [Int] { points.map(\.chosen) }
  var preemptions: Int { points.count { $0.isPreemption } }
  var contextSwitches: Int { points.count { $0.isSwitch } }

  mutating func append(_ index: Int, among tasks: [Int], previous: Int, step: Int) {
    // Room for a small schedule's choices at once: growing from 1 reallocated it five times.
    if points.isEmpty { points.reserveCapacity(16) }
    points.append(ChoicePoint(tasks: tasks, previous: previous, chosen: index, step: step))
  }
}
