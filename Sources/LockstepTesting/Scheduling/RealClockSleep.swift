/// Thrown by a deterministic run when one of its tasks sleeps until deadlines computed from the
/// real clock, which never catches up with virtual time: inject a `Clock` and pass
/// `TestClock(advancesAutomatically: true)`. See <doc:WhichWorkRunsNext>.
public struct RealClockSleep: Error, CustomStringConvertible, Sendable {
  /// Where the deterministic run was started.
  public let site: CallSite
  /// The task that sleeps until real-clock deadlines: its number, name and creation site.
  public let task: String
  /// Every job the run executed before it stopped.
  public let trace: SchedulerTrace

  /// What happened and what to do about it.
  public var description: String {
    "In the deterministic run started at \(site), \(task) sleeps until deadlines it computes from "
      + "the real clock (ContinuousClock.now or SuspendingClock.now): it sleeps until a deadline "
      + "it already slept until, or one computed from it, while real time has not reached it. "
      + "Virtual time cannot move the real clock, so this code would sleep again and again. The "
      + "run was stopped and its tasks are quarantined. Inject a Clock into the code under test "
      + "and pass it TestClock(advancesAutomatically: true), which deterministic runs advance "
      + "like virtual time; or compute deadlines from the clock you sleep on (clock.now)."
  }
}
