import Foundation

/// Whether the long real-thread checks run: `LOCKSTEP_LONG_STRESS=1`, as `scripts/stress-mode.sh`
/// sets it. They make 10,000 runs on real threads, whose calls overlap often only on a machine
/// with little else to do — beside the rest of the suite in parallel they would be too few to
/// judge — so the suite runs smaller checks, and the script the long ones, alone.
public enum LongStressRuns {
  /// `true` when `LOCKSTEP_LONG_STRESS=1`.
  public static let areEnabled = ProcessInfo.processInfo.environment["LOCKSTEP_LONG_STRESS"] == "1"
}
