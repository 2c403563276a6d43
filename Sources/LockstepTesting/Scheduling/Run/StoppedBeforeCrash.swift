/// A replay up to a crash (``ExplorationStrategy/replayUpToCrash(_:atStep:)``) that stopped before
/// the step that crashed the process in the recorded run, so that this process survives it.
struct StoppedBeforeCrash: Error, CustomStringConvertible {
  /// The step the replay did not run, numbered from 1 as the timeline numbers steps.
  let step: Int
  var actorsLeftBusy = ""
  /// The run's tasks as a report lists them, with where each waits.
  var tasks: [String] = []

  var description: String {
    "Stopped before step \(step), the step that crashed the process in the recorded run; the "
      + "tasks, stopped where they were, are quarantined\(actorsLeftBusy)."
      + (tasks.isEmpty ? "" : "\nTasks:" + tasks.map { "\n  - " + $0 }.joined())
  }
}
