/// Inside a deterministic run, suspends the current task until no other job of the run is ready,
/// and returns `true`; outside a run, returns `false` at once.
///
/// "No job is ready" is the moment the run would otherwise move virtual time to its next sleeper
/// (or report a deadlock): everything that can happen at the current instant has happened. The
/// wait is a wake-up timer of the run due now (``DeterministicRun/wake(after:_:)`` with a delay of
/// zero), so it neither advances virtual time nor adds a choice point to an exploration, and a
/// sleeper due at this very instant still runs before it. The task resumes as an ordinary job.
///
/// This is the one hook Lockstep's value recorders use into a run (`expectNoEvents`, marble
/// diagrams). A run that ends while the wait is pending hands the timer to a real-time bound of
/// zero, so the task is resumed then.
nonisolated(nonsending) func awaitRunQuiescence() async -> Bool {
  guard let run = DrainThread.current else { return false }
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    if !run.wake(after: .zero, { continuation.resume() }) { continuation.resume() }
  }
  return true
}

/// Whether the current thread drains a deterministic run: whether the code calling it is a job of
/// one.
var isInDeterministicRun: Bool { DrainThread.current != nil }
