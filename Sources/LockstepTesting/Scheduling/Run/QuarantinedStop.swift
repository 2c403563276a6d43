/// A run stopped before its body finished, its tasks quarantined where they were: it ran its step
/// limit, or a replay up to a crash stopped before the crashing step.
struct QuarantinedStop: Error, CustomStringConvertible {
  /// Why the run stopped: the words of its report before `quarantined`.
  let reason: String
  var actorsLeftBusy = ""
  /// The run's tasks as a report lists them, with where each waits.
  var tasks: [String] = []

  var description: String {
    "\(reason) quarantined\(actorsLeftBusy)."
      + (tasks.isEmpty ? "" : "\nTasks:" + tasks.map { "\n  - " + $0 }.joined())
  }

  /// A run that executed its step limit (exploration's `maxSteps`) without its body finishing.
  static func stepLimitReached(steps: Int, actorsLeftBusy: String, tasks: [String]) -> Self {
    QuarantinedStop(
      reason: "The schedule ran \(steps) jobs without finishing (maxSteps): tasks keep each other "
        + "busy forever in this order (a livelock); they are",
      actorsLeftBusy: actorsLeftBusy, tasks: tasks)
  }

  /// A replay up to a crash (``ExplorationStrategy/replayUpToCrash(_:atStep:)``) that stopped
  /// before `step` (numbered from 1, as the timeline numbers steps), the step that crashed the
  /// process in the recorded run, so that this process survives it.
  static func stoppedBeforeCrash(step: Int, actorsLeftBusy: String, tasks: [String]) -> Self {
    QuarantinedStop(
      reason: "Stopped before step \(step), the step that crashed the process in the recorded "
        + "run; the tasks, stopped where they were, are",
      actorsLeftBusy: actorsLeftBusy, tasks: tasks)
  }
}
