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
  /// for an actor's job the tasks seen to run in it (``tasksSwitching(_:)``) with where it left
  /// them.
  mutating func recordAfterStep(_ site: SuspensionSite, ranInActorJob ran: [SchedulerTrace.RanTask]) {
    recordSuspension(site)
    guard !ran.isEmpty, let last = trace.steps.indices.last, trace.steps[last].task == nil else {
      return
    }
    trace.tasksRanInActorJobs[last] = ran
    for entry in ran {
      tasks[entry.task].lastStep = last
      if entry.site.finished { tasks[entry.task].finished = true }
    }
  }

  /// The tasks of the run, by number and kept address, among those with runtime ids `ids` (tasks
  /// that switched executors during an actor's job), each once, in order.
  func tasksSwitching(_ ids: some Sequence<UInt64>) -> [(task: Int, object: UInt)] {
    var found: [(task: Int, object: UInt)] = []
    for id in ids {
      guard let task = tasks.number(of: id), let object = tasks[task].object,
        !found.contains(where: { $0.task == task })
      else { continue }
      found.append((task, object))
    }
    return found
  }
}
