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

/// The choices of one schedule. The ready tasks of every choice point are kept one after another
/// in one array: a schedule's choices then cost no allocation each (``ChoicePoint`` is built when
/// read).
struct ScheduleRecord: Equatable, Sendable {
  /// What a choice point keeps besides its tasks.
  private struct Mark: Equatable, Sendable {
    /// Where the point's tasks end in ``ScheduleRecord/tasks``.
    let end: Int
    let previous: Int
    let chosen: Int
    let step: Int
  }

  /// The tasks of every choice point, in order.
  private var tasks: [Int] = []
  private var marks: [Mark] = []

  init() {}

  init(points: [ChoicePoint]) {
    for point in points {
      append(point.chosen, among: point.tasks, previous: point.previous, step: point.step)
    }
  }

  /// How many choice points the schedule had.
  var count: Int { marks.count }

  /// The choice point of this index.
  subscript(index: Int) -> ChoicePoint {
    let mark = marks[index]
    let start = index == 0 ? 0 : marks[index - 1].end
    return ChoicePoint(
      tasks: Array(tasks[start..<mark.end]), previous: mark.previous, chosen: mark.chosen,
      step: mark.step)
  }

  var points: [ChoicePoint] { (0..<count).map { self[$0] } }
  var choices: [Int] { marks.map(\.chosen) }
  /// Feeds `hasher` what `hasher.combine(choices)` would, without making the array.
  func hashChoices(into hasher: inout Hasher) {
    hasher.combine(marks.count)
    for mark in marks { hasher.combine(mark.chosen) }
  }
  var preemptions: Int { points.count { $0.isPreemption } }
  var contextSwitches: Int { points.count { $0.isSwitch } }

  mutating func append(_ index: Int, among tasks: [Int], previous: Int, step: Int) {
    // Room for a small schedule's choices at once: growing from 1 reallocated them five times.
    if marks.isEmpty {
      marks.reserveCapacity(16)
      self.tasks.reserveCapacity(48)
    }
    // One at a time: a choice has a few tasks, and `append(contentsOf:)` costs more than they do.
    for task in tasks { self.tasks.append(task) }
    marks.append(Mark(end: self.tasks.count, previous: previous, chosen: index, step: step))
  }

  /// A new, empty record that takes this one's buffers, leaving this record without them: each
  /// schedule of an exploration records in the buffers of the one before.
  mutating func moveBuffersToNewRecord() -> ScheduleRecord {
    var record = ScheduleRecord()
    swap(&record.tasks, &tasks)
    record.tasks.removeAll(keepingCapacity: true)
    swap(&record.marks, &marks)
    record.marks.removeAll(keepingCapacity: true)
    return record
  }
}
