public import Foundation
import LockstepInterposition

/// What time it is inside a deterministic run: on Linux, `ContinuousClock.now`,
/// `SuspendingClock.now`, `Date()` and `DispatchTime.now()` read the run's virtual time while its
/// jobs and the blocks and threads they start run, so code that computes deadlines from the real
/// clocks runs unchanged.
///
/// ```swift
/// try await withDeterministicScheduling {
///   let start = Date()
///   try await Task.sleep(for: .seconds(600))
///   #expect(Date().timeIntervalSince(start) == 600)   // exactly, in microseconds of real time
/// }
/// ```
///
/// The wall clock starts at ``defaultStartDate`` (`withStartDate(_:_:)` sets another); the
/// monotonic clocks start where the real ones stand when the run first reads them. See
/// <doc:WhatTimeItIs>.
public enum VirtualNow {
  /// Whether runs in this process read virtual now.
  public static var isAvailable: Bool { unavailableReason == nil }

  /// Why runs in this process read the real clocks, or `nil` when they read virtual now.
  public static var unavailableReason: String? { VirtualNowSupport.unavailableReason }

  /// The instant a run's `Date()` starts at by default: 2001-01-01 00:00:00 UTC, Foundation's
  /// reference date, so `Date().timeIntervalSinceReferenceDate` is the run's virtual time in
  /// seconds (as a `Double`: 150 ms reads `0.15000000000000002`).
  public static var defaultStartDate: Date { Date(timeIntervalSince1970: defaultStart) }

  /// Runs `body` with `Date()` starting at `date` in the runs started inside it.
  ///
  /// ```swift
  /// try await VirtualNow.withStartDate(Date(timeIntervalSince1970: 1_767_225_600)) {
  ///   try await withDeterministicScheduling { await model.refreshIfStale() }
  /// }
  /// ```
  nonisolated(nonsending) public static func withStartDate<T>(
    _ date: Date, _ body: nonisolated(nonsending) () async throws -> T
  ) async rethrows -> T {
    lockstep_note_clock_override()
    return try await $startDate.withValue(date) { try await body() }
  }

  /// Runs `body` with `Date()` starting at `date` in the runs started inside it (for the blocking
  /// form of the runs).
  public static func withStartDate<T>(_ date: Date, _ body: () throws -> T) rethrows -> T {
    lockstep_note_clock_override()
    return try $startDate.withValue(date) { try body() }
  }

  /// Reads the real clocks in `read`, even inside a run, where `ContinuousClock.now`,
  /// `SuspendingClock.now`, `DispatchTime.now()` and `Date()` are virtual: for a test that times
  /// itself, or a log line with the real time.
  ///
  /// ```swift
  /// let started = VirtualNow.readingRealClocks { ContinuousClock.now }
  /// try await withDeterministicScheduling { await model.refreshAll() }
  /// let took = VirtualNow.readingRealClocks { ContinuousClock.now } - started
  /// ```
  public static func readingRealClocks<T>(_ read: () throws -> T) rethrows -> T {
    try RealTime.reading(read)
  }

  /// ``defaultStartDate`` in seconds since 1970 (a literal: the run path reads it).
  static var defaultStart: TimeInterval { 978_307_200 }

  @TaskLocal private static var startDate: Date?

  /// Turns virtual now off for the runs started in a task, in Lockstep's own tests of the
  /// fallback.
  @TaskLocal private static var forcedOff = false

  /// Runs `body` with runs that read the real clocks, as where virtual now is not available.
  nonisolated(nonsending) static func withRealClocks<T>(
    _ body: nonisolated(nonsending) () async throws -> T
  ) async rethrows -> T {
    lockstep_note_clock_override()
    return try await $forcedOff.withValue(true) { try await body() }
  }

  /// Whether a run started now reads virtual now.
  static var isInEffect: Bool {
    var state = lockstep_virtual_now_state()
    if state < 0 {
      state = VirtualNowSupport.unavailableReason == nil ? 1 : 0
      lockstep_set_virtual_now_state(state)
    }
    return state == 1 && !(lockstep_clock_overrides_used() && forcedOff)
  }

  /// Where a run started now starts its wall clock, in nanoseconds since 1970.
  static var startForRun: Int64 {
    guard lockstep_clock_overrides_used(), let date = startDate else {
      return Int64(defaultStart) * 1_000_000_000
    }
    return RunClocks.nanosecondsSince1970(date)
  }

  /// What a report says of a run that read the real clocks.
  static var realClocksNote: String {
    "Now read the real clocks in this run (\(unavailableReason ?? "turned off for the run")): each "
      + "sleep's duration was recovered from real-clock readings, and code that sleeps until "
      + "deadlines computed from ContinuousClock.now or Date() cannot run in virtual time."
  }
}
