/// Chooses which ready job runs next during exploration, and records its choices so that a
/// schedule can be replayed, enumerated and shrunk.
///
/// The scheduler asks only at a *choice point*: a step with two or more ready jobs. `tasks` are the
/// run-local task numbers of the ready jobs, oldest first (0 for a job that is not a task);
/// `previous` is the task whose job ran last; `step` is the number (from 0) of the step the picked
/// job runs as.
///
/// The pickers: ``RandomPicker``, ``PCTPicker``, ``GuidedPicker`` (a plan: replays, the exhaustive
/// search, shrinking) and ``CrashTrailPicker``, which wraps another for the crash report.
protocol SchedulePicker {
  mutating func pick(among tasks: [Int], previous: Int, step: Int) -> Int
  /// The choices made so far.
  var record: ScheduleRecord { get }
  /// Whether the picker could not follow its plan (a guided replay); `false` for the others.
  var diverged: Bool { get }
  /// Where a guided replay first left its plan, if it knows.
  var divergence: ReplayDivergence? { get }
  /// Records its choices in `empty`, an empty record whose buffers it reuses, if it made none yet.
  mutating func reuse(_ empty: ScheduleRecord)
}

extension SchedulePicker {
  var diverged: Bool { false }
  var divergence: ReplayDivergence? { nil }
  mutating func reuse(_ empty: ScheduleRecord) {}
}
