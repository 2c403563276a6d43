import Foundation
import LockstepTesting

/// One measured figure. A figure compared with something is compared with a baseline measured in
/// the same run (`against` says what it is): only such a comparison has a goal and a `met`. A
/// figure on its own (`against == nil`) has neither.
struct Measurement: Codable {
  let benchmarkCase: String
  let metric: String
  /// Median over the repetitions, in the unit named by `unit`.
  let value: Double
  let unit: String
  /// What the value is compared with, measured in this run: "the same test with real sleeps".
  let against: String?
  /// The baseline's median, in the same unit as `value`.
  let baseline: Double?
  /// The dimensionless result of the comparison; `ratioIs` says how it is computed.
  let ratio: Double?
  let ratioIs: String?
  /// The goal for `ratio`, and whether this run met it. A missed goal is reported, never a
  /// failure of the run: on a shared machine a speed figure moves with the load.
  let goal: String?
  let met: Bool?
  /// The isolation of the code that timed `value`: `nonisolated` (every case's own code, unless it
  /// says otherwise), `@MainActor`, or `actor`. A baseline's isolation is named in `against`.
  var isolation = "nonisolated"

  /// The same figure, timed from a caller with another `isolation`.
  func from(_ isolation: String) -> Measurement {
    var copy = self
    copy.isolation = isolation
    return copy
  }

  /// A figure on its own: no baseline, no goal.
  static func figure(_ benchmarkCase: String, _ metric: String, _ value: Double, _ unit: String)
    -> Measurement
  {
    Measurement(
      benchmarkCase: benchmarkCase, metric: metric, value: value, unit: unit, against: nil,
      baseline: nil, ratio: nil, ratioIs: nil, goal: nil, met: nil)
  }

  /// A figure compared with a baseline measured in the same run. `ratio` defaults to value ÷
  /// baseline.
  static func compared(
    _ benchmarkCase: String, _ metric: String, _ value: Double, _ unit: String,
    against: String, baseline: Double, ratio: Double? = nil, ratioIs: String = "value ÷ baseline",
    goal: String? = nil, met: Bool? = nil
  ) -> Measurement {
    Measurement(
      benchmarkCase: benchmarkCase, metric: metric, value: value, unit: unit, against: against,
      baseline: baseline, ratio: ratio ?? value / baseline, ratioIs: ratioIs, goal: goal, met: met)
  }

  /// How `seconds`, measured at each of `sizes`, grows from each size to the next: the exponent
  /// k of `time ∝ size^k`, in milliseconds, with the goal of every per-sleeper structure
  /// (O(n log n) or better: k ≤ 1.3).
  static func growth(
    _ benchmarkCase: String, _ label: String, sizes: [Int], seconds: [Double]
  ) -> [Measurement] {
    sizes.indices.dropFirst().map { index in
      let exponent =
        log(seconds[index] / seconds[index - 1]) / log(Double(sizes[index]) / Double(sizes[index - 1]))
      return .compared(
        benchmarkCase, "\(label), N = \(sizes[index])", seconds[index] * 1e3, "ms",
        against: "the same at N = \(sizes[index - 1])", baseline: seconds[index - 1] * 1e3,
        ratio: exponent, ratioIs: "growth exponent (n log n ≈ 1.1, n² = 2)", goal: "≤ 1.3",
        met: exponent <= 1.3)
    }
  }
}

/// A benchmark case: runs its workload, checks that it did what it should, and returns its
/// measurements.
struct BenchmarkCase {
  let name: String
  let run: () async throws -> [Measurement]
}

/// The workload did not do what it should (a sleeper not woken, a call left pending, a failure
/// that is not the expected one): a Lockstep bug, and the case's figures would mean nothing. It
/// fails the case and makes the bench exit non-zero.
struct BenchmarkFailure: Error, CustomStringConvertible {
  let description: String
}

/// The issues that are not warnings: a warning speaks of the process, such as the first seeded run
/// saying that hashing keeps per-process seeds outside a test process, not of the workload.
func failures(_ issues: [ReportedIssue]) -> [ReportedIssue] { issues.filter { !$0.isWarning } }

/// Throws a ``BenchmarkFailure`` with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
  if !condition { throw BenchmarkFailure(description: message()) }
}

/// Wall-clock seconds of one run of `body`, timed in the caller's isolation.
nonisolated(nonsending) func seconds(_ body: nonisolated(nonsending) () async throws -> Void)
  async rethrows -> Double
{
  let clock = ContinuousClock()
  let start = clock.now
  try await body()
  let elapsed = clock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// The median of `repetitions` runs of `body`, in seconds. Runs once first to warm up.
func medianSeconds(repetitions: Int = 5, _ body: () async throws -> Void) async rethrows -> Double {
  _ = try await seconds(body)
  var samples: [Double] = []
  for _ in 0..<repetitions { samples.append(try await seconds(body)) }
  return median(samples)
}

/// The medians of `first` and `second`, measured in turns (first, second, first…) so that load from
/// other processes hits both alike. Runs each once first to warm up.
func alternatingMedianSeconds(
  repetitions: Int, _ first: () async throws -> Void, _ second: () async throws -> Void
) async rethrows -> (first: Double, second: Double) {
  _ = try await seconds(first)
  _ = try await seconds(second)
  var firstSamples: [Double] = []
  var secondSamples: [Double] = []
  for _ in 0..<repetitions {
    firstSamples.append(try await seconds(first))
    secondSamples.append(try await seconds(second))
  }
  return (median(firstSamples), median(secondSamples))
}

func median(_ samples: [Double]) -> Double {
  let sorted = samples.sorted()
  return sorted[sorted.count / 2]
}

/// The cases selected by `--only <substring>`; all of them without the flag.
func onlySelected(_ cases: [BenchmarkCase]) -> [BenchmarkCase] {
  let arguments = CommandLine.arguments
  guard let index = arguments.firstIndex(of: "--only"), arguments.indices.contains(index + 1) else {
    return cases
  }
  let wanted = arguments[index + 1].lowercased()
  return cases.filter { $0.name.lowercased().contains(wanted) }
}
