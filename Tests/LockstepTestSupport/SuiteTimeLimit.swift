import Foundation

/// The time limit of a suite: a minute, or under a scale (`LOCKSTEP_TIMEOUT_SCALE`, which the
/// sanitizer's runs set to 5) two minutes times the scale, rounded up. In a parallel suite under
/// the sanitizer an exploration may wait minutes for a core behind other tests' explorations, and
/// the stress tests keep every core busy for most of a minute.
public enum SuiteTimeLimit {
  /// A minute, or two times the scale.
  public static let minutes: Int = {
    let text = ProcessInfo.processInfo.environment["LOCKSTEP_TIMEOUT_SCALE"] ?? ""
    guard let scale = Double(text), scale.isFinite, scale > 1 else { return 1 }
    return 2 * Int(min(scale, 60).rounded(.up))
  }()
}
