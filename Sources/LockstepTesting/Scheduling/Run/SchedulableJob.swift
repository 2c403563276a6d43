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
}

extension SchedulableJob {
  func retainTask() -> UInt? { nil }

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
