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
