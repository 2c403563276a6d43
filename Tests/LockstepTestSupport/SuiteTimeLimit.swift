import Foundation

/// The time limit of a suite whose explorations take most of a minute under the thread
/// sanitizer: a minute times `LOCKSTEP_TIMEOUT_SCALE`, rounded up. In a parallel suite the tests
/// share the machine's cores; the sanitizer's runs set the scale (5).
public enum SuiteTimeLimit {
  /// A minute, times the scale.
  public static let minutes: Int = {
    let text = ProcessInfo.processInfo.environment["LOCKSTEP_TIMEOUT_SCALE"] ?? ""
    guard let scale = Double(text), scale.isFinite, scale > 1 else { return 1 }
    return Int(min(scale, 60).rounded(.up))
  }()
}
