/// What a replay token records besides its choices, so that a replay can tell whether it follows
/// the recorded schedule: at every choice point the number of eligible jobs and the picked job's
/// task (modulo 4), and for a whole schedule its number of steps and a checksum of the order in
/// which its tasks ran.
///
/// A replay that does not follow the schedule — because the code under test changed, or because
/// it iterates a `Set` or `Dictionary` while hashing is not deterministic — is then reported at
/// the first choice point that differs, instead of running another schedule in silence.
struct ScheduleCheck: Hashable, Sendable {
  /// The end of a whole schedule.
  struct Whole: Hashable, Sendable {
    /// The steps (jobs run) of the schedule.
    let steps: Int
    /// ``ScheduleCheck/checksum(of:)`` of its trace.
    let checksum: UInt32
  }

  /// The number of eligible jobs at each choice point.
  let readyCounts: [Int]
  /// The task of the job picked at each choice point, modulo 4.
  let chosenTasks: [Int]
  /// For a whole schedule, its end; `nil` for the choices made before a crash, after which a
  /// replay goes on with default choices.
  let whole: Whole?

  init(readyCounts: [Int], chosenTasks: [Int], whole: Whole?) {
    self.readyCounts = readyCounts
    self.chosenTasks = chosenTasks
    self.whole = whole
  }

  /// The check of a schedule that ran to its end.
  init(record: ScheduleRecord, trace: SchedulerTrace) {
    readyCounts = record.points.map(\.tasks.count)
    chosenTasks = record.points.map { $0.chosenTask & 3 }
    whole = Whole(steps: trace.steps.count, checksum: Self.checksum(of: trace))
  }

  /// FNV-1a over the task of every step (0 for a job that is not a task) and whether it ran on
  /// the main actor: the order in which the schedule's tasks ran.
  static func checksum(of trace: SchedulerTrace) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for step in trace.steps {
      var value = UInt32(truncatingIfNeeded: step.task ?? 0) << 1 | (step.isMainActor ? 1 : 0)
      for _ in 0..<4 {
        hash = (hash ^ (value & 0xFF)) &* 16_777_619
        value >>= 8
      }
    }
    return hash
  }

  /// Where a replay of `token` left the token's schedule, or `nil` when it followed it: the first
  /// difference its picker saw, else a difference in the number of choice points, steps, or the
  /// order of the tasks. A replay `stoppedBeforeCrash` did not make the choice, if there was one,
  /// that picked the job of the step that crashed; nor may it make more choices than the token.
  static func divergence(
    of token: ReplayToken, picker: some SchedulePicker, trace: SchedulerTrace,
    stoppedBeforeCrash: Bool = false
  ) -> ReplayDivergence? {
    if let divergence = picker.divergence { return divergence }
    let recorded = token.choices.count
    let record = picker.record
    if record.count < recorded - (stoppedBeforeCrash ? 1 : 0) {
      return ReplayDivergence(
        pointIndex: record.count, stepIndex: nil,
        "the run had \(record.count) choice point(s) where the token recorded \(recorded)")
    }
    let isPrefix = token.check.map { $0.whole == nil } ?? false
    if record.count > recorded && (!isPrefix || stoppedBeforeCrash) {
      return ReplayDivergence(
        pointIndex: recorded, stepIndex: record[recorded].step,
        "the run had more choice points than the \(recorded) the token recorded")
    }
    guard let whole = token.check?.whole else { return nil }
    if trace.steps.count != whole.steps {
      return ReplayDivergence(
        pointIndex: nil, stepIndex: nil,
        "every choice point matched, but the run took \(trace.steps.count) steps where "
          + "the recorded schedule took \(whole.steps)")
    }
    if checksum(of: trace) != whole.checksum {
      return ReplayDivergence(
        pointIndex: nil, stepIndex: nil,
        "every choice point matched, but its tasks ran in another order than in the "
          + "recorded schedule")
    }
    return nil
  }
}
