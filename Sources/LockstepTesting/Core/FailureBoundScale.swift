import Foundation

/// How much longer than asked every real-time failure bound of Lockstep lasts:
/// `LOCKSTEP_TIMEOUT_SCALE`, read once per process (1 when unset). Bounds in a deterministic run's
/// virtual time are not scaled; the article *Where work pauses* says why and how to use it.
enum FailureBoundScale {
  static let variable = "LOCKSTEP_TIMEOUT_SCALE"

  /// The factor of this process.
  static let current: Double = {
    let (scale, problem) = read(ProcessInfo.processInfo.environment[variable])
    if let problem { FileHandle.standardError.write(Data("Lockstep: \(problem)\n".utf8)) }
    return scale
  }()

  /// The factor a value of the variable gives, and why it was not read, if it was not.
  static func read(_ text: String?) -> (scale: Double, problem: String?) {
    guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
      return (1, nil)
    }
    if let scale = Double(text), scale.isFinite, scale > 0 { return (scale, nil) }
    return (
      1,
      "\(variable)=\(text) is not a positive number, so failure bounds are not scaled "
        + "(\(variable)=5 makes every real-time bound five times longer)"
    )
  }

  /// `timeout` multiplied by the factor of this process.
  static func scaled(_ timeout: Duration) -> Duration { scaled(timeout, by: current) }

  /// How a scaled bound reads in a report: `50 s (10 s × LOCKSTEP_TIMEOUT_SCALE=5)`, or just
  /// `10 s` when the factor is 1.
  static func text(_ timeout: Duration, by scale: Double = current) -> String {
    guard scale != 1 else { return timeout.lockstepText }
    // A whole factor prints as one (`5`, not `5.0`); one too large for an Int, as a Double.
    let factor = scale.rounded() == scale && scale < 1e15 ? String(Int(scale)) : String(scale)
    return scaled(timeout, by: scale).lockstepText + " (\(timeout.lockstepText) × \(variable)=\(factor))"
  }

  static func scaled(_ timeout: Duration, by scale: Double) -> Duration {
    guard scale != 1, timeout > .zero else { return timeout }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let result = seconds * scale
    // Beyond a century a bound is as good as none; keep it representable.
    return result >= 3_153_600_000 ? .seconds(3_153_600_000) : .seconds(result)
  }
}
