/// What a run needs to know about a job, so that its state machine can be tested with plain
/// values instead of runtime jobs.
protocol SchedulableJob {
  /// The runtime id of the task the job belongs to, or `nil` when the job is not a task.
  var taskID: UInt64? { get }
  /// Whether the job must run isolated to the main actor.
  var isMainActor: Bool { get }
  /// Keeps the job's task alive, for reports that read where it waits: its address, or `nil`
  /// when the job is not a task that can be kept. Asked once per task, as it reaches a run.
  func retainTask() -> UInt?
  /// What a job that is not a task is, for the timeline; read before the job runs.
  var kindOfJob: KindOfJob { get }
}

/// What a job of a run is: a task's, or a job of the runtime that runs no task of its own.
enum KindOfJob: UInt8, Sendable {
  case task
  /// An actor's job, which runs the work queued on the actor.
  case actor
  /// The job that resumes a task after `Task.yield()`.
  case yield
  /// Another job of no task.
  case other
}

extension SchedulableJob {
  func retainTask() -> UInt? { nil }

  var kindOfJob: KindOfJob { taskID != nil ? .task : .other }

  /// Whether this is an actor's job: no task's, off the main actor. Held, it keeps its actor busy.
  var isActorJob: Bool { taskID == nil && !isMainActor }
}

/// A job of a run with the run-local number of its task: 1, 2, … in the order the tasks first
/// reached the run, or 0 for a job that is not a task (an actor's processing job).
struct RunEntry<Job: SchedulableJob> {
  let job: Job
  let task: Int
  /// The index of the step that was running when the job was handed to the run (it resumed,
  /// started or woke the job's task), or -1 when no step was (a job from outside the run).
  var enqueuedAt: Int32 = -1
}
