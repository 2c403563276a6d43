import Foundation

/// How much longer than asked every real-time failure bound of Lockstep lasts:
/// `LOCKSTEP_TIMEOUT_SCALE`, read once per process (1 when unset).
///
/// A failure bound only limits how long a failing test takes to fail, and a passing test never
/// reaches it — on a normal machine. Under the thread sanitizer, or on a CI runner with every core
/// busy, a test can run ten times slower and reach the 10 s default of a wait it would pass.
/// `LOCKSTEP_TIMEOUT_SCALE=5 swift test --sanitize=thread` multiplies every bound that elapses in
/// real time (the waits of every primitive, `waitUntil`, a deterministic run's `timeout:`); bounds
/// in a deterministic run's virtual time do not change, as they do not depend on the machine.
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

  static func scaled(_ timeout: Duration, by scale: Double) -> Duration {
    guard scale != 1, timeout > .zero else { return timeout }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let result = seconds * scale
    // Beyond a century a bound is as good as none; keep it representable.
    return result >= 3_153_600_000 ? .seconds(3_153_600_000) : .seconds(result)
  }
}
