/// What the trace keeps of a step once its job returned: where it left its task, and the tasks an
/// actor's job ran.
extension RunState {
  /// Records where the last step left its task, read once its job returned.
  mutating func recordSuspension(_ site: SuspensionSite) {
    guard !site.isNone, let last = trace.steps.indices.last else { return }
    trace.steps[last].suspendedAt = site
    if site.finished, let task = trace.steps[last].task { tasks[task].finished = true }
  }

  /// Records what the drain read once the last step's job returned: where it left its task, and
  /// for an actor's job the tasks seen to run in it with where it left them
  /// (``recordRanInActorJob(_:)``).
  mutating func recordAfterStep(_ site: SuspensionSite, ranInActorJob ran: [SchedulerTrace.RanTask]) {
    recordSuspension(site)
    for entry in ran where !wasRecordedInActorJob(entry.task) { recordRanInActorJob(entry) }
  }

  /// Records a task seen to run in the last step, an actor's job, with where it left it.
  mutating func recordRanInActorJob(_ entry: SchedulerTrace.RanTask) {
    guard let last = trace.steps.indices.last, trace.steps[last].task == nil else { return }
    // Room for a small test's actor jobs at once: growing from 8 copied the entries twice a run.
    if trace.tasksRanInActorJobs.isEmpty { trace.tasksRanInActorJobs.reserveCapacity(32) }
    trace.tasksRanInActorJobs.append((last, entry))
    tasks[entry.task].lastStep = last
    if entry.site.finished { tasks[entry.task].finished = true }
  }

  /// The number and kept address of the run's task with runtime id `id`, a task that switched
  /// executors during the last step, an actor's job: `nil` when the run does not keep it, or has
  /// recorded it for that step already.
  func taskToRecord(switchingWithID id: UInt64) -> (task: Int, object: UInt)? {
    guard let task = tasks.number(of: id), let object = tasks[task].object,
      !wasRecordedInActorJob(task)
    else { return nil }
    return (task, object)
  }

  /// Whether task `task` is recorded as run in the last step.
  private func wasRecordedInActorJob(_ task: Int) -> Bool {
    guard let last = trace.steps.indices.last else { return false }
    for (step, ran) in trace.tasksRanInActorJobs.reversed() {
      guard step == last else { return false }
      if ran.task == task { return true }
    }
    return false
  }
}
