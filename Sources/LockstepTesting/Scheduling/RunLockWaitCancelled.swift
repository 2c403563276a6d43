/// A test was cancelled — by its time limit, most often — while its deterministic run waited for
/// the process's run lock, held by another test's run.
public struct RunLockWaitCancelled: Error, CustomStringConvertible {
  let site: CallSite
  let wait: RunLockWait
  let holder: RunSerializer.Holder?

  /// What the run waited for, behind whom, and what to do about it.
  public var description: String {
    let held =
      holder.map {
        " The run holding it was started at \($0.site), "
          + "\(RunLockWait.text($0.since.duration(to: RealTime.now))) earlier."
      } ?? ""
    return "The test was cancelled while its deterministic run, started at \(site), waited "
      + "\(RunLockWait.text(wait.waited)) for the process's run lock, behind "
      + "\(wait.runsAhead) run(s) of other tests: runs never overlap in a process.\(held) "
      + RunLockWait.advice
  }
}
