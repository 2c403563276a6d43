/// What the running task did, as Lockstep's primitives and the code under test report it: notes,
/// waits, failures, creations, and the names of the tasks they come from.
extension DeterministicRun {
  /// Called when the run receives a job: if this is the drain thread, remembers the name of the
  /// task whose job is running.
  func noteRunningTaskNameIfDraining() {
    guard DrainingRun.current === self, !runningNameChecked, let id = runningTaskID,
      // A task the job started inline (`Task.immediate`) may be the current task now: its name is
      // not the job's task's.
      RuntimeHooks.currentTaskID() == id
    else { return }
    recordNameIfMissing(forTask: id)
  }

  /// Records the current task's name as the name of task `id`, unless the run looked it up
  /// already. For the running job's task, the drain loop knows that without asking the state.
  private func recordNameIfMissing(forTask id: UInt64) {
    if id == runningTaskID {
      guard !runningNameChecked else { return }
      runningNameChecked = true
    } else if !state.withLock({ $0.needsName(forTask: id) }) {
      return
    }
    state.withLock { $0.recordName(RuntimeHooks.currentTaskName(), forTask: id) }
  }

  /// Adds a note to the running task's step. Drain thread only.
  func note(_ text: String) {
    let id = currentTaskRecordingName()
    state.withLock { $0.note(text, byTask: id) }
  }

  /// The runtime id of the current task, after recording its name if the run lacks it.
  private func currentTaskRecordingName() -> UInt64? {
    guard let id = RuntimeHooks.currentTaskID() else { return nil }
    recordNameIfMissing(forTask: id)
    return id
  }

  /// A task factory created the task `taskID`. Drain thread only.
  func noteCreated(taskID: UInt64, name: String?, site: CallSite) {
    state.withLock { $0.noteCreated(taskID: taskID, name: name, at: site) }
  }

  /// A check failed in the running step. Drain thread only.
  func noteFailure() {
    let id = currentTaskRecordingName()
    state.withLock { $0.noteFailure(byTask: id) }
  }

  /// The running task finished. Drain thread only.
  func noteFinished() {
    let id = currentTaskRecordingName()
    state.withLock { $0.noteFinished(byTask: id) }
  }

  /// A job of the run waited for an actor another run used (``ActorClaims``). Drain thread only.
  func noteWaitForOtherRun(_ wait: OtherRunWait) {
    state.withLock { $0.noteWaitForOtherRun(wait) }
  }

  /// The running task waits at a Lockstep primitive; returns whether to cancel it now.
  /// Drain thread only.
  func noteWait(for what: Waiting) -> Bool {
    let id = currentTaskRecordingName()
    return state.withLock { $0.noteWait(for: what, byTask: id) } == .cancelTask
  }
}
