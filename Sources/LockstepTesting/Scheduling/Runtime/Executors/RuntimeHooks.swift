// Runtime/ is the only code of Lockstep that touches runtime symbols, executors and threads; this
// file holds the runtime entry points the rest of it uses. The experimental executor SPI is
// imported in one file, LockstepExecutors.swift (``ExecutorAPI``).
//
// How the deterministic scheduler plugs into the Swift runtime (Swift 6.3):
// - `_createExecutors(factory:)` replaces the process's default (global) executor and main
//   executor with `LockstepDefaultExecutor` and `LockstepMainExecutor`, once, on the first run.
//   Both forward every job that does not belong to a deterministic run to the executors that were
//   installed before (the platform's), so the rest of the process keeps working as before.
// - A job belongs to a run when it is enqueued on the run's drain thread (thread-local routing) or
//   when it is a job of a task that already ran in the run (routing by runtime task id).
// - The drain loop runs each job with `runSynchronously` on `LockstepDefaultExecutor` as the
//   *task executor*; because it is a `SchedulingExecutor`, every `Task.sleep` and clock sleep of
//   the job calls its `enqueue(_:at:tolerance:clock:)`, which puts the sleep in virtual time.
//   Main-actor jobs run isolated to the main executor, on the drain thread.
//
// When: in 6.3 `_createExecutors` stores the two executors into the static storage behind
// `Task.defaultExecutor` and `MainActor.executor` with plain stores, and the runtime reads that
// storage on every global/main enqueue, so the standard library asks for it before the first
// enqueue. In a Linux test process a constructor of the executable does it before `main`, when
// no other thread exists (LockstepInterposition/EarlyExecutors.c, `installBeforeMain()`).
// `ExecutorInstallationTests` checks that. Elsewhere (an executable such as lockstep-demo, a
// process on an Apple platform) the first run does it while other threads may be enqueueing:
// whether the runtime's read of that storage can see the store half done is not something a test
// here can show either way, and Lockstep does not claim it cannot.
import LockstepInterposition

/// Called by LockstepInterposition's constructor before `main` of a Linux test process: installs
/// the executors while no other thread can enqueue a job.
@_cdecl("lockstep_install_executors_before_main")
@usableFromInline func installExecutorsBeforeMain() {
  ExecutorAPI.installExecutors()
}

/// A runtime job held by the scheduler.
struct ScheduledJob: SchedulableJob, @unchecked Sendable {
  let job: UnownedJob
  let isMainActor: Bool
  let taskID: UInt64?

  func retainTask() -> UInt? { taskID == nil ? nil : SuspendedTaskStacks.retain(job) }

  var kindOfJob: KindOfJob {
    guard taskID == nil else { return .task }
    switch Int(lockstep_job_kind(unsafeBitCast(job, to: UnsafeRawPointer.self))) {
    case Int(lockstep_job_actor): return .actor
    case Int(lockstep_job_yield): return .yield
    default: return .other
    }
  }
}

enum RuntimeHooks {
  /// Installs the routing executors once; throws when this toolchain or OS cannot.
  static func install() throws(DeterministicSchedulingUnavailable) {
    if let reason = installation { throw DeterministicSchedulingUnavailable(reason: reason) }
  }

  /// Why this toolchain or OS cannot run the scheduler; `nil` where it can (and the executors
  /// are then installed).
  static var unavailability: String? { simulatedUnavailability ?? installation }

  /// A reason the entry points bound around it take as their unavailability (tests set it, to see
  /// what a platform without the scheduler gets).
  @TaskLocal static var simulatedUnavailability: String?

  /// `nil` once installed, otherwise why installing is impossible.
  private static let installation: String? = {
    guard DrainingRun.isSupported else {
      return "this platform has no thread-local storage the scheduler can use"
    }
    if let reason = ExecutorAPI.unavailability { return reason }
    // The probe's tasks go to the platform's executors, before any run can see them.
    _ = TaskCreationHook.isInEffect
    if !lockstep_executors_installed_before_main() { ExecutorAPI.installExecutors() }
    RunWatchdog.start()
    OutsideWorkTracking.install()
    ParkedJobs.install()
    LockPoints.install()
    DispatchTimers.install()
    ExpectationWaits.install()
    OutsideWaits.install()
    return nil
  }()

  /// Runs one job of a run on the current (drain) thread; a main-actor job only with the lease
  /// of the main actor.
  static func run(_ job: ScheduledJob, holding lease: borrowing MainActorLease?) {
    if job.isMainActor {
      switch lease {
      case .some: assert(MainActorAccess.isHeldHere, "a main-actor job run off the main actor")
      case .none: preconditionFailure("a main-actor job run without the main actor's lease")
      }
    }
    ExecutorAPI.run(job)
  }

  /// Hands a job that does not belong to a run (any more) to the platform executors, after
  /// `delay` of real time.
  static func forward(_ job: ScheduledJob, after delay: Duration) {
    ExecutorAPI.forward(job, after: delay)
  }

  /// The runtime id of the task running on this thread, if any. Inside an actor's processing job
  /// this is the task whose work the actor runs, which the job itself does not tell.
  static func currentTaskID() -> UInt64? {
    withUnsafeCurrentTask { task in
      // A task is a job: the runtime keeps the task id in the job header.
      task.map { runtimeJobTaskID(unsafeBitCast($0, to: UnownedJob.self)) }
    }
  }

  /// The runtime id of `task`: a task is a job, and the runtime keeps the id in the job header.
  static func taskID<Success, Failure>(of task: Task<Success, Failure>) -> UInt64 {
    // `Task` holds one strong reference to the task object and nothing else.
    runtimeJobTaskID(unsafeBitCast(task, to: UnownedJob.self))
  }

  /// The name of the task running on this thread, if it has one.
  static func currentTaskName() -> String? {
    if #available(LockstepTaskNames , *) {
      return Task.name
    }
    return nil
  }
}

/// The runtime id of the task `job` belongs to (0 where the runtime cannot say).
func runtimeJobTaskID(_ job: UnownedJob) -> UInt64 {
  lockstep_job_task_id(unsafeBitCast(job, to: UnsafeRawPointer.self))
}
