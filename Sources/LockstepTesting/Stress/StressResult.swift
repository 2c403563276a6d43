import Foundation

/// What ``stress(times:fileID:filePath:line:column:_:)`` saw: how many runs of the body failed on
/// the normal executors, out of how many, and the first failure.
public struct StressResult: Sendable, CustomStringConvertible {
  /// How many times the body ran.
  public let runs: Int
  /// How many of those runs failed: recorded an issue, threw, or had Lockstep report a problem.
  public let failedRuns: Int
  /// The first run that failed, from 1, and what failed in it; `nil` when every run passed.
  public let firstFailure: (run: Int, failures: [String])?
  /// Where the count came from: `LOCKSTEP_STRESS_COUNT=1000`, or `nil` for the `times:` argument.
  let countSource: String?

  /// ``failedRuns`` divided by ``runs``: 0 when every run passed.
  public var failureRate: Double { runs == 0 ? 0 : Double(failedRuns) / Double(runs) }

  /// `stress: 3 of 1,000 runs failed (0.3 %) on the normal executors; first failure, in run 17:
  /// …`, or `stress: all 1,000 runs passed on the normal executors`.
  public var description: String {
    let count = countSource.map { " (\($0))" } ?? ""
    guard let firstFailure else {
      return "stress: all \(runs.grouped) runs passed on the normal executors\(count)"
    }
    var text =
      "stress: \(failedRuns.grouped) of \(runs.grouped) runs failed (\(Self.percent(failureRate))) on "
      + "the normal executors\(count); first failure, in run \(firstFailure.run.grouped):"
    for failure in firstFailure.failures {
      text += "\n  - " + failure.replacingNewlines(with: "\n    ")
    }
    return text
  }

  /// `0.3 %`, `12 %`, `0.01 %`.
  static func percent(_ rate: Double) -> String {
    let percent = rate * 100
    let digits = percent >= 10 ? 0 : percent >= 1 ? 1 : 2
    var text = String(format: "%.\(digits)f", percent)
    if text.contains(".") {
      while text.hasSuffix("0") { text.removeLast() }
      if text.hasSuffix(".") { text.removeLast() }
    }
    return text + " %"
  }
}

extension Int {
  /// `1,000`, `12,345,678`.
  var grouped: String {
    let digits = String(magnitude)
    var text = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
      text.append(digit)
    }
    return (self < 0 ? "-" : "") + text
  }
}
