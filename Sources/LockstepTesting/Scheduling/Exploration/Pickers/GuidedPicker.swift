/// Follows a given list of choices, then the default choice; used to replay, to enumerate
/// schedules depth-first and to shrink. A choice that no longer fits (the run took another path)
/// falls back to the default choice and marks the schedule as diverged.
///
/// Given a token's ``ScheduleCheck``, it also notes the first choice point where the run leaves
/// the recorded schedule: another number of eligible jobs, or the planned choice running another
/// task than when the token was recorded.
struct GuidedPicker: SchedulePicker {
  /// The index to pick at each choice point; `nil` means the default choice.
  private let plan: [Int?]
  private let check: ScheduleCheck?
  private(set) var record = ScheduleRecord()
  /// Whether a planned choice did not fit.
  private(set) var diverged = false
  /// The first place where the run left the plan or the check.
  private(set) var divergence: ReplayDivergence?
  /// Read where the picker is made, in the explorer's task: the picks run on the drain thread.
  private let hashingIsDeterministic = HashingDeterminism.isDeterministic

  init(plan: [Int?], check: ScheduleCheck? = nil) {
    self.plan = plan
    self.check = check
  }

  /// Replays `token`.
  init(replaying token: ReplayToken) {
    self.init(plan: token.choices, check: token.check)
  }

  mutating func reuse(_ empty: ScheduleRecord) {
    if record.count == 0 { record = empty }
  }

  mutating func pick(among tasks: [Int], previous: Int, step: Int) -> Int {
    let position = record.count
    var index = ChoicePoint.defaultIndex(among: tasks, previous: previous)
    if position < plan.count, let planned = plan[position] {
      if planned < tasks.count {
        index = planned
      } else {
        diverged = true
        depart(
          at: position, step: step,
          "the token picks job \(planned + 1) where only \(tasks.count) jobs were ready")
      }
    }
    if let check, position < check.readyCounts.count {
      if tasks.count != check.readyCounts[position] {
        depart(
          at: position, step: step,
          "\(tasks.count) jobs were ready where the recorded schedule had \(check.readyCounts[position])")
      } else if tasks[index] & 3 != check.chosenTasks[position] {
        depart(
          at: position, step: step,
          "the token's choice ran task \(tasks[index]), where the recorded schedule ran another task")
      }
    }
    record.append(index, among: tasks, previous: previous, step: step)
    return index
  }

  private mutating func depart(at point: Int, step: Int, _ difference: String) {
    if divergence == nil {
      divergence = ReplayDivergence(
        pointIndex: point, stepIndex: step, difference,
        hashingIsDeterministic: hashingIsDeterministic)
    }
  }
}
