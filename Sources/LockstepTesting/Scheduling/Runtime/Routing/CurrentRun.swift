/// How Lockstep's primitives talk to the deterministic run they run in, if any: the one door
/// from the rest of Lockstep into the scheduler's runtime.
///
/// Every member is cheap and does nothing outside a run (off a drain thread), so primitives call
/// them unconditionally.
enum CurrentRun {
  /// Whether this code runs on a drain thread, inside a deterministic run.
  static var isActive: Bool { DrainingRun.current != nil }

  /// Whether this is a job of a run whose clocks read virtual now (``VirtualNow``).
  static var readsVirtualNow: Bool { DrainingRun.current?.clocks != nil }

  /// Tells the run that the running task is about to wait at a Lockstep primitive for `what`
  /// (for timelines and deadlock reports). When exploration injects a cancellation at this wait,
  /// cancels the running task and returns `true`; the caller's cancellation handling then ends
  /// the wait.
  static func noteWait(for what: @autoclosure () -> String) -> Bool {
    noteWait(as: .primitive(what()))
  }

  /// Like ``noteWait(for:)``, for a wait the run puts in words only if a report asks.
  static func noteWait(as what: @autoclosure () -> Waiting) -> Bool {
    guard let run = DrainingRun.current, run.noteWait(for: what()) else { return false }
    withUnsafeCurrentTask { $0?.cancel() }
    return true
  }

  /// Tells the run that a task factory created `task`, named `name`, at `site` (for reports: a
  /// task's name can otherwise be read only from inside it).
  static func noteCreated<Success, Failure>(
    _ task: Task<Success, Failure>, name: String?, site: CallSite
  ) {
    DrainingRun.current?.noteCreated(taskID: RuntimeHooks.taskID(of: task), name: name, site: site)
  }

  /// Tells the run that the running task is finishing.
  static func noteFinished() {
    DrainingRun.current?.noteFinished()
  }

  /// Marks the running step as the one where a check failed (for the picture of the run).
  static func noteFailure() {
    DrainingRun.current?.noteFailure()
  }

  /// Adds a line to the running task's step of the run's timeline.
  static func note(_ text: @autoclosure () -> String) {
    DrainingRun.current?.note(text())
  }

  /// Starts a failure bound that calls `action` after `delay` of the run's virtual time; `nil`
  /// outside a run or when the run is over (the caller then uses a real-time bound).
  static func startTimer(after delay: Duration, _ action: @escaping @Sendable () -> Void)
    -> (any CancellableTask)?
  {
    DrainingRun.current?.startTimer(after: delay, action)
  }

  /// Inside a deterministic run, suspends the current task until no other job of the run is
  /// ready, and returns `true`; outside a run, returns `false` at once.
  ///
  /// "No job is ready" is the moment the run would otherwise move virtual time to its next
  /// sleeper (or report a deadlock): everything that can happen at the current instant has
  /// happened. The wait is a wake-up timer of the run due now (a ``wake(after:_:)`` of zero), so
  /// it neither advances virtual time nor adds a choice point to an exploration, and a sleeper due
  /// at this very instant still runs before it. A run that ends while the wait is pending hands
  /// the timer to a real-time bound of zero, so the task is resumed then. Value recorders use it
  /// (`expectNoEvents`, marble diagrams).
  nonisolated(nonsending) static func awaitQuiescence() async -> Bool {
    guard let run = DrainingRun.current else { return false }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      if !run.wake(after: .zero, { continuation.resume() }) { continuation.resume() }
    }
    return true
  }

  /// Calls `action` on the drain thread after `delay` of virtual time, as if a task slept that
  /// long: it counts as progress, not as a failure bound. Returns `false` outside a run or when
  /// the run is over.
  static func wake(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Bool {
    DrainingRun.current?.wake(after: delay, action) ?? false
  }
}

/// Tells the deterministic run about each task a `LiveTaskFactory` creates inside it; bound as a
/// task-local value for the run's body and every task it creates.
struct RunTaskCreationObserver: TaskCreationObserver {
  func taskCreated<Success, Failure>(_ task: Task<Success, Failure>, name: String?, site: CallSite) {
    CurrentRun.noteCreated(task, name: name, site: site)
  }
}
