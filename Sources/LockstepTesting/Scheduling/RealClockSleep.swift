/// Thrown by a deterministic run when one of its tasks sleeps until deadlines computed from the
/// real clock (`ContinuousClock.now`, `SuspendingClock.now`): code that adds an interval to the
/// real time and sleeps until the result cannot run in virtual time — the real clock it reads
/// never catches up, so it would sleep again and again.
///
/// Lockstep stops the run at the first such sleep: a task that sleeps until the same real
/// instant it already slept until, or until a whole number of milliseconds after it, while real
/// time has not even reached that instant (a debounce that re-sleeps until its deadline, a timer
/// that adds its interval to its last deadline).
///
/// ```swift
/// do {
///   try await withDeterministicScheduling { await debouncer.run() }
/// } catch let error as RealClockSleep {
///   print(error)   // names the task; inject a Clock and pass TestClock(advancesAutomatically: true)
/// }
/// ```
public struct RealClockSleep: Error, CustomStringConvertible, Sendable {
  /// Where the deterministic run was started.
  ///
  /// ```swift
  /// print(error.site)   // "MyTests/DebounceTests.swift:12:5"
  /// ```
  public let site: CallSite
  /// The task that sleeps until real-clock deadlines: its number, name and creation site.
  ///
  /// ```swift
  /// print(error.task)   // "task 2 \"debounce\""
  /// ```
  public let task: String
  /// Every job the run executed before it stopped.
  ///
  /// ```swift
  /// print(error.trace.timeline)
  /// ```
  public let trace: SchedulerTrace

  /// What happened and what to do about it.
  ///
  /// ```swift
  /// catch let error as RealClockSleep { print(error) }
  /// ```
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
