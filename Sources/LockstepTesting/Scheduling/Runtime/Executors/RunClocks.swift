import Foundation
import LockstepInterposition

/// The virtual clocks of one run (see ``VirtualNow``): what `ContinuousClock.now`,
/// `SuspendingClock.now`, `Date()` and `DispatchTime.now()` read on the run's thread while one of
/// its jobs runs. The C target `LockstepInterposition` answers the reads.
struct RunClocks {
  private let storage: UnsafeMutablePointer<lockstep_virtual_clocks>

  /// Clocks whose wall clock starts at `wallStart` nanoseconds after 1970, and whose monotonic clocks start where the
  /// real ones stand when the run first reads them.
  init(wallStart: Int64) {
    storage = .allocate(capacity: 1)
    lockstep_virtual_clocks_start(storage, wallStart)
  }

  /// The clocks, for a thread that reads them as the run's own (XCTest's waiter).
  var pointer: UnsafeMutablePointer<lockstep_virtual_clocks> { storage }

  /// Gives the memory back; the run calls it once, when it is deallocated.
  func free() { storage.deallocate() }

  /// Runs `body` with the calling thread reading these clocks at `elapsed` nanoseconds of
  /// virtual time.
  @inline(__always)
  func reading(at elapsed: Int64, _ body: () -> Void) {
    lockstep_virtual_clocks_set_elapsed(storage, elapsed)
    let previous = lockstep_run_context_swap_clocks(storage)
    defer { lockstep_run_context_swap_clocks(previous) }
    body()
  }

  /// Lets the clocks go, the run being over: a thread of the run still reading them (a job given
  /// up in a wait) sees them move on in real time, so that its own timeouts pass.
  func letGo() { lockstep_virtual_clocks_release(storage) }

  /// Moves the instant the run's threads read to `elapsed` nanoseconds of virtual time: a parked
  /// job resumes at the run's now.
  func set(elapsed: Int64) { lockstep_virtual_clocks_set_elapsed(storage, elapsed) }

  static func nanosecondsSince1970(_ date: Date) -> Int64 {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    let nanoseconds = ((date.timeIntervalSince1970 - seconds) * 1e9).rounded()
    return Int64(seconds) * 1_000_000_000 + Int64(nanoseconds)
  }
}

/// Real time, also on a run's thread while a job runs: Lockstep's own bounds (a run's `timeout:`,
/// the inline drain budget, waits outside runs, ``FailureBoundScale``) read it.
enum RealTime {
  /// Reads a clock in real time.
  @inline(__always)
  static func reading<T>(_ read: () throws -> T) rethrows -> T {
    let previous = lockstep_run_context_swap_clocks(nil)
    defer { lockstep_run_context_swap_clocks(previous) }
    return try read()
  }

  /// Now, on the continuous clock.
  static var now: ContinuousClock.Instant { reading { ContinuousClock.now } }

  /// Where the drain counts real time from (``sinceEpoch``): read once.
  static var epoch: ContinuousClock.Instant { origin.instant }

  /// ``epoch``, and on Linux the continuous clock's reading in nanoseconds beside it, read once
  /// together.
  private static let origin: (nanoseconds: Int64, instant: ContinuousClock.Instant) = {
    let instant = now
    return (continuousNanoseconds, instant)
  }()

  /// ``origin``'s nanoseconds on their own: read from the tuple, which holds a resilient type, the
  /// whole tuple would be copied on every read.
  private static let epochNanoseconds = origin.nanoseconds

  /// Now, as the time since ``epoch``: a `Duration`, compared and stored as plain integers, where
  /// a `ContinuousClock.Instant` (not frozen) goes through its value witnesses. Read on every job:
  /// on Linux in one C call, not through `ContinuousClock.now` (about 100 instructions fewer).
  static var sinceEpoch: Duration {
    #if os(Linux)
      .nanoseconds(continuousNanoseconds - epochNanoseconds)
    #else
      epoch.duration(to: now)
    #endif
  }

  /// The continuous clock's real reading in nanoseconds: on Linux `CLOCK_BOOTTIME`, the clock
  /// the standard library's `ContinuousClock` reads there; elsewhere 0 (unused).
  private static var continuousNanoseconds: Int64 {
    #if os(Linux)
      lockstep_real_clock_nanoseconds(Int32(CLOCK_BOOTTIME))
    #else
      0
    #endif
  }
}

/// Whether reads of now can be made virtual in this process: checked once, by reading the
/// clocks with a set of virtual ones in place.
enum VirtualNowSupport {
  /// The variable that turns virtual now off for the process.
  static let variable = "LOCKSTEP_REAL_NOW"

  /// `nil` when runs read virtual now; otherwise why not.
  static let unavailableReason: String? = {
    if ProcessInfo.processInfo.environment[variable] == "1" { return "\(variable)=1 is set" }
    guard lockstep_clocks_interposable() else {
      return "this platform binds clock reads to the C library (only Linux lets Lockstep stand in "
        + "for them)"
    }
    return probe()
      ? nil
      : "the clock reads of this process do not reach Lockstep's definitions "
        + "(LockstepTesting is not linked into the executable the usual way)"
  }()

  /// Reads each clock at two virtual instants and checks that they read exactly those.
  private static func probe() -> Bool {
    let clocks = RunClocks(wallStart: Int64(VirtualNow.defaultStart) * 1_000_000_000)
    defer { clocks.free() }
    let step: Int64 = 1_000_000_007
    var first: (ContinuousClock.Instant, SuspendingClock.Instant, Date)?
    var second: (ContinuousClock.Instant, SuspendingClock.Instant, Date)?
    clocks.reading(at: 0) { first = (ContinuousClock.now, SuspendingClock.now, Date()) }
    clocks.reading(at: step) { second = (ContinuousClock.now, SuspendingClock.now, Date()) }
    guard let first, let second else { return false }
    let exact = Duration.nanoseconds(step)
    let wallStart = first.2.timeIntervalSince(VirtualNow.defaultStartDate)
    let wallStep = second.2.timeIntervalSince(first.2)
    return first.0.duration(to: second.0) == exact && first.1.duration(to: second.1) == exact
      && abs(wallStart) < 1e-6 && abs(wallStep - 1.000_000_007) < 1e-6
  }
}
