import Foundation

/// How many times ``stress(times:fileID:filePath:line:column:_:)`` runs its body when the
/// environment says: `LOCKSTEP_STRESS_COUNT`, read once per process.
///
/// An empty value is the same as none. A value that is not a whole number of 1 or more is a
/// problem reported at every `stress` call, which then runs nothing.
struct StressCount: Sendable, Equatable {
  static let variable = "LOCKSTEP_STRESS_COUNT"

  /// The count the variable gives, if it is set and good.
  var count: Int?
  /// What is wrong with the variable's value, if anything.
  var problem: String?

  /// Reads the variable from `environment`.
  init(_ environment: [String: String]) {
    guard let text = environment[Self.variable]?.trimmingCharacters(in: .whitespaces),
      !text.isEmpty
    else { return }
    if let count = Int(text), count >= 1 {
      self.count = count
    } else {
      problem =
        "\(Self.variable)=\(text) is not a whole number of 1 or more: it is how many times every "
        + "stress call runs its body (\(Self.variable)=1000)"
    }
  }

  /// The count of this process, read the first time `stress` asks.
  static let process = StressCount(ProcessInfo.processInfo.environment)

  /// Replaces ``process`` in a task, in Lockstep's own tests.
  @TaskLocal static var override: StressCount?

  /// What `stress` calls started now use.
  static var current: StressCount { override ?? process }
}
