/// The drain thread's own fields, which a thread whose job parks keeps and has back when it
/// resumes, and where a drain left off.
extension DeterministicRun {
  /// What a thread keeps of the drain thread's own fields while its job is parked, to have them
  /// back when it resumes.
  struct DrainerFields {
    fileprivate var runningTaskID: UInt64?
    fileprivate var inJob: Bool
    fileprivate var drainerTaskID: UInt64?
    fileprivate var runningNameChecked: Bool
    fileprivate var jobStartSinceEpoch: Duration
    var resumer: BatonSlot?
    var drainsAsHelper: Bool
  }

  /// A helper thread's fields as it starts draining: no job runs.
  static let helperFields = DrainerFields(
    runningTaskID: nil, inJob: false, drainerTaskID: nil, runningNameChecked: false,
    jobStartSinceEpoch: RealTime.sinceEpoch, resumer: nil, drainsAsHelper: true)

  /// The drain thread's own fields, as this thread left them. Drain thread only.
  var drainerFields: DrainerFields {
    get {
      DrainerFields(
        runningTaskID: runningTaskID, inJob: inJob, drainerTaskID: drainerTaskID,
        runningNameChecked: runningNameChecked, jobStartSinceEpoch: jobStartSinceEpoch, resumer: resumer,
        drainsAsHelper: drainsAsHelper)
    }
    set {
      runningTaskID = newValue.runningTaskID
      inJob = newValue.inJob
      drainerTaskID = newValue.drainerTaskID
      runningNameChecked = newValue.runningNameChecked
      jobStartSinceEpoch = newValue.jobStartSinceEpoch
      resumer = newValue.resumer
      drainsAsHelper = newValue.drainsAsHelper
    }
  }

  /// Whether this thread runs one of the run's jobs now (not Lockstep's code between two).
  var isInJob: Bool { DrainingRun.isCurrent(self) && inJob }

  /// Where a drain left off: a drain that stops when its inline budget is spent (see ``drain(until:)``)
  /// is continued, on another thread, from here. Drain thread only — one thread at a time.
  struct DrainProgress {
    var started = false
    var report: DeterministicDeadlock?
    var steps = 0
    var jobsSinceCheck = 0
    /// A job chosen to run next, held for the next stretch because this one may not run it (it
    /// needs the main actor, or it must run without it), and the number of its step.
    var heldJob: (job: ScheduledJob, needsName: Bool, isKept: Bool, now: Int64, step: Int)?
    /// Where the last job left its task, for the trace: recorded with the next step.
    var suspendedAt = SuspensionSite.none
    /// Whether the drain, stuck, let the main queue run since it last ran a job.
    var gaveMainActorBack = false
  }
}
