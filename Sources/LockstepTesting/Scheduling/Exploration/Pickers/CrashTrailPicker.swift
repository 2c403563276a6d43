/// Wraps the picker of an explored schedule and appends each of its choices to the exploration's
/// crash trail (``CrashReport/Trail``), so that a crash can print the token of the choices made so
/// far.
struct CrashTrailPicker: SchedulePicker {
  private(set) var picker: any SchedulePicker
  let trail: CrashReport.Trail

  init(_ picker: any SchedulePicker, trail: CrashReport.Trail) {
    self.picker = picker
    self.trail = trail
  }

  var record: ScheduleRecord { picker.record }
  var diverged: Bool { picker.diverged }
  var divergence: ReplayDivergence? { picker.divergence }

  mutating func reuse(_ empty: ScheduleRecord) { picker.reuse(empty) }

  mutating func pick(among tasks: [Int], previous: Int, step: Int) -> Int {
    let index = picker.pick(among: tasks, previous: previous, step: step)
    trail.record(choice: index, readyCount: tasks.count, task: tasks[index])
    return index
  }
}
