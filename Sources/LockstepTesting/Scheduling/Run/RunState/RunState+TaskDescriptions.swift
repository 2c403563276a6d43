/// How reports describe the run's tasks, and the task objects the run keeps for them.
extension RunState {
  /// The tasks of the run, the body first, for a deadlock report; `waits` gives the lines that
  /// say where a task waits, by task number.
  func taskDescriptions(waits: [Int: [String]] = [:]) -> [String] {
    tasks.descriptions(bodyFinished: bodyFinished, waits: waits)
  }

  /// Where the tasks a report describes were created: symbolicated before the report is made
  /// under the lock (``TaskOriginSymbols/prepare(_:)``).
  var reportedTaskOrigins: [TaskOrigin] { tasks.reportedOrigins }

  /// The tasks a report reads where they wait: those that ran and are not known to have finished,
  /// kept alive by the run (``TaskRecord/object``), by number.
  var suspendedTaskObjects: [Int: UInt] { tasks.suspendedObjects }

  /// Gives up the run's hold on its tasks' objects: the caller releases them.
  mutating func takeTaskObjects() -> [UInt] { tasks.takeObjects() }

  /// How task `task` is named in reports: `task 3 "debounce" (created at …)`.
  func taskDescription(_ task: Int) -> String {
    var text = "task \(task)"
    if let name = tasks[task].name { text += " \"\(name)\"" }
    if let createdAt = tasks[task].createdAt {
      text += " (created at \(createdAt))"
    } else if let origin = tasks[task].origin {
      text += " (created in \(origin))"
    }
    return text
  }
}
