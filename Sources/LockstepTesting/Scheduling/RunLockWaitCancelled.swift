/// A test was cancelled — by its time limit, most often — while its exploration waited for the
/// process's exploration lock, held by another test's exploration.
public struct RunLockWaitCancelled: Error, CustomStringConvertible {
  let site: CallSite
  let wait: RunLockWait
  let holder: RunSerializer.Holder?

  /// What the run waited for, behind whom, and what to do about it.
  public var description: String {
    let held =
      holder.map {
        " The exploration holding it was started at \($0.site), "
          + "\(RunLockWait.text($0.since.duration(to: RealTime.now))) earlier."
      } ?? ""
    return "The test was cancelled while its exploration, started at \(site), waited "
      + "\(RunLockWait.text(wait.waited)) for the process's exploration lock, behind "
      + "\(wait.runsAhead) exploration(s) of other tests: explorations take turns in a process "
      + "(other deterministic runs go on beside them).\(held) "
      + RunLockWait.advice
  }
}
