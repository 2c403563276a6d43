public import Foundation

/// What time it is inside a deterministic run: on Linux, `ContinuousClock.now`,
/// `SuspendingClock.now`, `Date()` and `DispatchTime.now()` read the run's virtual time while its
/// jobs run, so code that computes deadlines from the real clocks runs unchanged.
///
/// ```swift
/// try await withDeterministicScheduling {
///   let start = Date()
///   try await Task.sleep(for: .seconds(600))
///   #expect(Date().timeIntervalSince(start) == 600)   // exactly, in microseconds of real time
/// }
/// ```
///
/// The wall clock starts at ``startDate`` (2000-01-01 00:00:00 UTC unless you set it); the
/// monotonic clocks start where the real ones stood when the run began. See *What time it is*
/// in the documentation for where this is not available and what happens instead.
public enum VirtualNow {
  /// Whether runs in this process read virtual now.
  ///
  /// ```swift
  /// #expect(VirtualNow.isAvailable, "\(VirtualNow.unavailableReason ?? "")")
  /// ```
  public static var isAvailable: Bool { unavailableReason == nil }

  /// Why runs in this process read the real clocks, or `nil` when they read virtual now.
  public static var unavailableReason: String? { VirtualNowSupport.unavailableReason }

  /// The instant a run's `Date()` starts at by default: 2000-01-01 00:00:00 UTC.
  public static let defaultStartDate = Date(timeIntervalSince1970: 946_684_800)

  /// The instant `Date()` reads when a run starts, for the runs started in this scope.
  ///
  /// ```swift
  /// try await VirtualNow.$startDate.withValue(Date(timeIntervalSince1970: 1_767_225_600)) {
  ///   try await withDeterministicScheduling { await model.refreshIfStale() }
  /// }
  /// ```
  @TaskLocal public static var startDate: Date = defaultStartDate

  /// Turns virtual now off for the runs started in a task, in Lockstep's own tests of the
  /// fallback.
  @TaskLocal static var forcedOff = false

  /// Whether a run started now reads virtual now.
  static var isInEffect: Bool { !forcedOff && isAvailable }

  /// What a report says of a run that read the real clocks.
  static var realClocksNote: String {
    "Now read the real clocks in this run (\(unavailableReason ?? "turned off for the run")): each "
      + "sleep's duration was recovered from real-clock readings, and code that sleeps until "
      + "deadlines computed from ContinuousClock.now or Date() cannot run in virtual time."
  }
}
