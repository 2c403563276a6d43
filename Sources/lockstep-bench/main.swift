import Foundation

// Every figure is a ratio against a baseline measured in this same run (medians of several
// repetitions), because the machines are shared and noisy. Build in release:
//   swift run -c release lockstep-bench [--json path] [--quick]

let arguments = CommandLine.arguments
let quick = arguments.contains("--quick")
let jsonPath: String =
  arguments.firstIndex(of: "--json").flatMap { index in
    arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
  } ?? "lockstep-bench.json"

// Each case lives in a file of its own; add new cases to this list.
let cases: [BenchmarkCase] = onlySelected([
  taskDrainCase(quick: quick),
  controlledCallsCase(quick: quick),
  debounceClockCase(quick: quick),
  sleepersClockCase(quick: quick),
  schedulerCase(quick: quick),
  testQueueCase(quick: quick),
  explorationCase(quick: quick),
  sequenceRecorderCase(quick: quick),
])

var all: [Measurement] = []
for benchmarkCase in cases {
  print("• \(benchmarkCase.name)")
  let results = try await benchmarkCase.run()
  for result in results {
    let ratio = result.ratio.map { String(format: "%.3f", $0) } ?? "-"
    let met = result.met.map { $0 ? "yes" : "NO" } ?? "-"
    print(
      "    \(result.metric.padding(toLength: 44, withPad: " ", startingAt: 0))"
        + " \(String(format: "%12.4f", result.value)) \(result.unit.padding(toLength: 8, withPad: " ", startingAt: 0))"
        + " ratio \(ratio.padding(toLength: 9, withPad: " ", startingAt: 0)) goal: \(result.goal) met: \(met)"
    )
  }
  all.append(contentsOf: results)
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
try encoder.encode(all).write(to: URL(fileURLWithPath: jsonPath))
print("Wrote \(all.count) measurements to \(jsonPath)")
