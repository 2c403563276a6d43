import Foundation

/// One measured figure: a Lockstep operation against a baseline measured in the same run.
struct Measurement: Codable {
  let benchmarkCase: String
  let metric: String
  /// Median over the repetitions, in the unit named by `unit`.
  let value: Double
  let unit: String
  /// The baseline's median, measured in the same run, in the same unit (nil when not applicable).
  let baseline: Double?
  /// value / baseline, or another dimensionless figure (growth exponent, speed-up).
  let ratio: Double?
  let goal: String
  let met: Bool?
}

/// A benchmark case: runs its workload and returns its measurements.
struct BenchmarkCase {
  let name: String
  let run: () async throws -> [Measurement]
}

/// Wall-clock seconds of one run of `body`.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
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
  samples.sort()
  return samples[samples.count / 2]
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
