import Foundation

/// The seeds a seed-sweeping test runs: 1…20 in the suite, or 1…`N` with `LOCKSTEP_SEEDS=N`, as
/// `scripts/queue-sync-seeds.sh` sets it to run a pattern under every seed of a long range.
public enum SeedSweep {
  /// 1…20, or 1…`LOCKSTEP_SEEDS`.
  public static let seeds: [UInt64] = {
    let text = ProcessInfo.processInfo.environment["LOCKSTEP_SEEDS"] ?? ""
    guard let last = UInt64(text.trimmingCharacters(in: .whitespaces)), last > 0 else {
      return Array(1...20)
    }
    return Array(1...last)
  }()
}
