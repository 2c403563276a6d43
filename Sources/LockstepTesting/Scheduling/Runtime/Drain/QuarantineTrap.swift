import LockstepInterposition

/// Holds the tasks of a quarantined run that an actor's job runs while the run frees its actors
/// (``DeterministicRun/releaseActors()``), at their next executor switch.
///
/// Why: an actor's processing job runs the tasks queued on the actor, and a task that leaves the
/// actor for the generic executor is not handed back to the run as a job: the runtime gives up the
/// actor and runs the task on in the same job, and its next `await` on the actor queues it on the
/// actor again, behind a new processing job. Tasks that call a shared actor in a loop thus keep it
/// busy through any number of processing jobs, and a later test's call waits behind them forever.
/// While a held actor job runs, each switch of one of the run's tasks goes to ``shared``, whose
/// `enqueue` holds the task in the run's quarantine (the Linux interposition of
/// `swift_task_switch`, LockstepInterposition/TaskSwitch.c); the actor's drain goes on with its
/// next job and ends with the actor idle. Checked by
/// `QuarantinedSharedActorXCTests.testALaterCallToASharedActorReturnsAfterARunThatTimedOutCallingIt`.
@available(LockstepCustomExecutors, *)
final class QuarantineTrap: SerialExecutor {
  static let shared = QuarantineTrap()

  /// Holds `job` in the quarantine of the run this thread frees the actors of; a job that reaches
  /// no run is never run either.
  func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    let scheduled = ScheduledJob(job: unowned, isMainActor: false, taskID: runtimeJobTaskID(unowned))
    DrainingRun.current?.enqueue(scheduled)
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

  /// The trap the switch hook reads: this executor's two words, and the check of the task.
  /// Written once, when first used, and only read after.
  nonisolated(unsafe) private static let trap: UnsafeMutablePointer<lockstep_task_switch_trap> = {
    let words = unsafeBitCast(shared.asUnownedSerialExecutor(), to: (UInt, UInt).self)
    let trap = UnsafeMutablePointer<lockstep_task_switch_trap>.allocate(capacity: 1)
    trap.initialize(
      to: lockstep_task_switch_trap(
        identity: UnsafeMutableRawPointer(bitPattern: words.0), implementation: words.1,
        should_trap: { _ in QuarantineTrap.switchingTaskIsTheRuns() }, context: nil))
    return trap
  }()

  /// Whether the router holds the switching task in the run this thread drains: one of its
  /// tasks, while the run is quarantined.
  private static func switchingTaskIsTheRuns() -> Bool {
    guard let run = DrainingRun.current, let id = RuntimeHooks.currentTaskID() else { return false }
    return run.state.withLock { JobRouter.route(.taskSwitch(task: id), in: $0) } == .held
  }

  /// Runs `body` (an actor job of a quarantined run, on the thread that drains it) with the
  /// run's tasks held at their next executor switch.
  static func holdingTasks(_ body: () -> Void) {
    let previous = lockstep_task_switch_set_trap(trap)
    body()
    _ = lockstep_task_switch_set_trap(previous)
  }
}

/// Runs an actor job of a quarantined run with its tasks held at their next switch, where the
/// runtime lets Lockstep see switches (``QuarantineTrap``).
func runHoldingQuarantinedTasks(_ body: () -> Void) {
  if #available(LockstepCustomExecutors , *) {
    QuarantineTrap.holdingTasks(body)
  } else {
    body()
  }
}
