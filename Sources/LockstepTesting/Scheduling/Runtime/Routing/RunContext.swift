import LockstepInterposition

/// What this thread does for which run: the one record the C layer keeps per thread
/// (`RunContext.h`) — the run it drains, the run its stand-ins, task creations and actor switches
/// tell, the outside work it runs, the clocks it reads, the crash trail it writes. Each scope sets
/// its own fields and gives them back as it ends.
enum RunContext {
  /// Runs `body` with this thread's `fields` those of `next`, and gives them back afterwards.
  @inline(__always)
  static func with<T>(
    _ next: lockstep_run_context, _ fields: lockstep_run_context_fields, _ body: () throws -> T
  ) rethrows -> T {
    var next = next
    var saved = lockstep_run_context()
    lockstep_run_context_enter(&next, fields, &saved)
    defer { lockstep_run_context_leave(&saved, fields) }
    return try body()
  }

  /// This thread's record.
  @inline(__always)
  static var here: UnsafePointer<lockstep_run_context> { lockstep_run_context_current() }

  /// The address of `run`, as the record names it: unretained, every scope's caller keeps the run
  /// alive for the scope.
  @inline(__always)
  static func naming(_ run: DeterministicRun) -> UnsafeMutableRawPointer {
    Unmanaged.passUnretained(run).toOpaque()
  }
}

/// Which run the current thread is draining (its run context's `drained_run`): every job enqueued
/// on a thread while it drains a run belongs to that run. (The thread Lockstep starts for the
/// purpose is ``DrainThread``; a caller's own thread drains runs too.)
enum DrainingRun {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
    /// The run whose jobs this thread drains, if any.
    static var current: DeterministicRun? {
      guard let pointer = RunContext.here.pointee.drained_run else { return nil }
      return Unmanaged<DeterministicRun>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether this thread drains `run` (without a reference count's traffic).
    static func isCurrent(_ run: DeterministicRun) -> Bool {
      RunContext.here.pointee.drained_run == RunContext.naming(run)
    }

    /// Runs `body` with `run` as this thread's run. Kept unretained: every caller is a method of
    /// `run` itself, which keeps it alive for the call.
    static func with<T>(_ run: DeterministicRun, _ body: () throws -> T) rethrows -> T {
      var next = lockstep_run_context()
      next.drained_run = RunContext.naming(run)
      return try RunContext.with(next, .drained_run, body)
    }

    static let isSupported = true
  #else
    static var current: DeterministicRun? { nil }
    static func isCurrent(_ run: DeterministicRun) -> Bool { false }
    static func with<T>(_ run: DeterministicRun, _ body: () throws -> T) rethrows -> T {
      try body()
    }
    static let isSupported = false
  #endif
}
