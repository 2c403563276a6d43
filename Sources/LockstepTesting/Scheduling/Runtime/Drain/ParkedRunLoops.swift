import LockstepInterposition

/// The run loops in which jobs of runs are parked now (a run loop is one thread's), so that
/// `CFRunLoopStop` from any thread ends the wait.
enum ParkedRunLoops {
  private static let parked = Locked<[UInt: DeterministicRun]>([:])

  static func enter(_ runLoop: UnsafeMutableRawPointer, run: DeterministicRun) {
    parked.withLock { $0[UInt(bitPattern: runLoop)] = run }
    lockstep_run_loop_waits_taken(1)
  }

  static func leave(_ runLoop: UnsafeMutableRawPointer) {
    parked.withLock { $0[UInt(bitPattern: runLoop)] = nil }
    lockstep_run_loop_waits_taken(-1)
  }

  /// `runLoop` is stopped: whether a job was parked in it (its wait ends).
  static func stop(_ runLoop: UnsafeMutableRawPointer) -> Bool {
    guard let run = parked.withLock({ $0[UInt(bitPattern: runLoop)] }) else { return false }
    run.runLoopStopped(runLoop)
    return true
  }
}
