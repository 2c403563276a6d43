/// Wraps the picker of an explored schedule and appends each of its choices to the
/// ``CrashReport``'s raw memory, so that a crash can print the token of the choices made so far.
struct CrashTrailPicker: SchedulePicker {
  private(set) var picker: any SchedulePicker

  init(_ picker: any SchedulePicker) { self.picker = picker }

  var record: ScheduleRecord { picker.record }
  var diverged: Bool { picker.diverged }
  var divergence: ReplayDivergence? { picker.divergence }

  mutating func pick(among tasks: [Int], previous: Int, step: Int) -> Int {
    let index = picker.pick(among: tasks, previous: previous, step: step)
    CrashReport.record(choice: index, readyCount: tasks.count, task: tasks[index])
    return index
  }
}
