/// How a test harness in the same package (LockstepTesting's deterministic runs) learns the name
/// and creation site of each task a ``LiveTaskFactory`` creates: the runtime lets a scheduler
/// read a task's name only from inside the task, and a task that never runs again after its
/// first job would otherwise stay unnamed in reports.
///
/// The observer is a task-local value, bound only inside a deterministic run; elsewhere reading
/// it finds nothing and costs a task-local lookup.
package protocol TaskCreationObserver: Sendable {
  /// `task` was just created, named `name`, at `site`.
  func taskCreated<Success, Failure>(_ task: Task<Success, Failure>, name: String?, site: CallSite)
}

package enum TaskCreationObservation {
  /// The observer of the deterministic run this code runs in, if any.
  @TaskLocal package static var observer: (any TaskCreationObserver)?
}
