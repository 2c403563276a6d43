/// A judge's verdict against one schedule: the failure to add to it, and, when the judge's own
/// check failed (not the body's), what makes two failing schedules fail the same way.
struct ScheduleVerdict: Sendable {
  let failure: String
  let key: String?
}

/// Judges one schedule after its run has ended, outside it: called with whether the body's checks
/// or the run already failed, it returns what to add to the schedule's failures, or `nil`.
typealias ScheduleJudge = @Sendable (_ failedAlready: Bool) async -> ScheduleVerdict?
