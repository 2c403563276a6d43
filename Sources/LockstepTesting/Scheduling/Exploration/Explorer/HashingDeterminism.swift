import Foundation
import LockstepInterposition

/// Whether Swift's hashing is deterministic in this process, which decides whether code that
/// iterates a `Set` or a `Dictionary` does so in the same order on every run.
///
/// On Linux, LockstepTesting makes it deterministic before `main` of a test process (a `*.xctest`
/// executable, as `swift test` runs it) that links it (the C target's `DeterministicHashing.c`
/// says why that is safe there), unless `LOCKSTEP_RANDOM_HASHING=1` is set; other programs keep
/// per-process seeds. Elsewhere, Swift seeds hashing per process, and each hash
/// table per storage address, unless `SWIFT_DETERMINISTIC_HASHING` is set when the process starts.
/// Keys whose hash is an address (`ObjectIdentifier`, an object's identity) iterate in a varying
/// order even then.
enum HashingDeterminism {
  static let variable = "SWIFT_DETERMINISTIC_HASHING"
  /// The variable that keeps per-process seeds on Linux.
  static let optOut = "LOCKSTEP_RANDOM_HASHING"

  /// The command that turns it on, as the reports print it.
  static let fix = "SWIFT_DETERMINISTIC_HASHING=1 swift test"

  /// What the runtime makes of a value of the variable.
  static func turnsOn(_ value: String?) -> Bool {
    guard let first = value?.first else { return false }
    return "1yYtT".contains(first)
  }

  /// Whether hashing is deterministic in this process: the runtime's own parameters on Linux, the
  /// variable elsewhere.
  static let inProcess: Bool = {
    #if os(Linux)
      return lockstep_hashing_is_deterministic()
    #else
      return turnsOn(ProcessInfo.processInfo.environment[variable])
    #endif
  }()

  /// Replaces ``inProcess`` for the reports made in a task, in Lockstep's own tests.
  @TaskLocal static var assumed: Bool?

  /// Whether hashing is deterministic, as the reports say it.
  static var isDeterministic: Bool { assumed ?? inProcess }

  /// The sentence a report adds, once, when hashing is not deterministic.
  static var note: String { "Hashing is not deterministic in this process: \(why)" }

  /// Why, and what to do.
  static var why: String { why(for: lockstep_hashing_setup()) }

  /// Why, and what to do, after the setup before `main` did `setup`.
  static func why(for setup: LockstepHashing) -> String {
    let consequence =
      "code that iterates a Set or a Dictionary can do so in another order on every run, and the "
      + "same seed or token can then run another schedule."
    switch setup {
    case lockstep_hashing_opted_out:
      return "\(optOut)=1 is set, so \(consequence) Unset it to make hashing deterministic."
    case lockstep_hashing_static_runtime:
      return "the Swift runtime is linked into the executable (--static-swift-stdlib), where "
        + "Lockstep cannot make hashing deterministic before it starts, and \(variable) is not "
        + "set: \(consequence) Set it before the process starts: \(fix)."
    case lockstep_hashing_not_a_test_process:
      return "this executable is not a test bundle (*.xctest), where Lockstep leaves Swift's "
        + "per-process seeds alone, and \(variable) is not set: \(consequence) Set "
        + "\(variable)=1 in its environment before it starts."
    case lockstep_hashing_not_main_executable:
      return "LockstepTesting is not linked into the test executable itself (a dynamic library), "
        + "so it could not make hashing deterministic before the process started, and "
        + "\(variable) is not set: \(consequence) Set it before the process starts: \(fix)."
    default:
      return "\(variable) is not set, so \(consequence) Set it before the process starts: \(fix)."
    }
  }

  /// Warns once per process, at the first seeded run or exploration, when hashing is not
  /// deterministic: a passing run says nothing else.
  static func warnOnceIfNotDeterministic(at site: CallSite) {
    #if os(Linux)
      // Asked on every seeded run: the runtime's flag, without a lazy global's once-check.
      if lockstep_hashing_is_deterministic() { return }
    #endif
    guard !isDeterministic, assumed == nil else { return }
    let first = warned.withLock { warned in
      defer { warned = true }
      return !warned
    }
    if first { reportWarning("Seeded runs and explorations may not repeat. \(note)", at: site) }
  }
  private static let warned = Locked(false)
}
