import Foundation

/// Whether Swift's hashing is deterministic in this process, which decides whether code that
/// iterates a `Set` or a `Dictionary` does so in the same order on every run.
///
/// Swift seeds hashing per process, and each hash table per storage address, unless the
/// `SWIFT_DETERMINISTIC_HASHING` environment variable is set when the process starts; setting it
/// later, from inside the process, changes nothing. Lockstep reads the variable as the runtime
/// does: a value starting with `1`, `y`, `Y`, `t` or `T` turns deterministic hashing on. Keys whose
/// hash is an address (`ObjectIdentifier`, an object's identity) iterate in a varying order even
/// then.
enum HashingDeterminism {
  static let variable = "SWIFT_DETERMINISTIC_HASHING"

  /// The command that turns it on, as the reports print it.
  static let fix = "SWIFT_DETERMINISTIC_HASHING=1 swift test"

  /// What the runtime makes of a value of the variable.
  static func turnsOn(_ value: String?) -> Bool {
    guard let first = value?.first else { return false }
    return "1yYtT".contains(first)
  }

  /// Whether the variable turned deterministic hashing on when this process started.
  static let inProcess = turnsOn(ProcessInfo.processInfo.environment[variable])

  /// Replaces ``inProcess`` for the reports made in a task, in Lockstep's own tests.
  @TaskLocal static var assumed: Bool?

  /// Whether hashing is deterministic, as the reports say it.
  static var isDeterministic: Bool { assumed ?? inProcess }

  /// The sentence a report adds, once, when hashing is not deterministic.
  static let note = "Hashing is not deterministic in this process: \(why)"

  /// Why, and what to do.
  static let why =
    "\(variable) is not set, so code that iterates a Set or a Dictionary can do so in another "
    + "order on every run, and the same seed or token can then run another schedule. Set it before "
    + "the process starts: \(fix)."
}
