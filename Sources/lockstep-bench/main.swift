import Foundation

// Every comparison is against a baseline measured in this same run (medians of several
// repetitions), because the machines are shared and noisy. Build in release:
//   swift run -c release lockstep-bench [--quick] [--only <case>] [--json path]
//
// The bench exits non-zero when a workload does not do what it should (a correctness failure: a
// Lockstep bug), never because a speed goal was missed.
//
// Each case runs in a nonisolated closure, so its figures are timed from a nonisolated caller;
// the main-actor case times the same runs from a `@MainActor` one. Every measurement names its
// isolation in the JSON. The article Performance.md (LockstepTesting's DocC) explains the figures.

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
  autoAdvancingClockCase(quick: quick),
  runCostCase(quick: quick),
  mainActorCase(quick: quick),
  clockReadCase(quick: quick),
  taskCreationCase(quick: quick),
  schedulerCase(quick: quick),
  testQueueCase(quick: quick),
  explorationCase(quick: quick),
  explorationThroughputCase(quick: quick),
  progressCostCase(quick: quick),
  sequenceRecorderCase(quick: quick),
  shardCase(quick: quick),
  linearizabilityCase(quick: quick),
  checkLinearizabilityCase(quick: quick),
  reportCostCase(quick: quick),
  dispatchStandInCase(quick: quick),
  parkedWaitCase(quick: quick),
  parallelRunsCase(quick: quick),
  lockPointCase(quick: quick),
])

/// `12.3457`, `1,234,567`: four significant decimals for small figures, none for large ones.
func formatted(_ value: Double) -> String {
  abs(value) >= 10_000 ? String(format: "%.0f", value) : String(format: "%.4g", value)
}

func printMeasurement(_ result: Measurement) {
  print("    \(result.metric): \(formatted(result.value)) \(result.unit)")
  guard let against = result.against, let baseline = result.baseline, let ratio = result.ratio
  else { return }
  var line = "      against \(against): \(formatted(baseline)) \(result.unit)"
  line += "; \(result.ratioIs ?? "ratio") = \(formatted(ratio))"
  if let goal = result.goal, let met = result.met { line += "; goal \(goal): \(met ? "met" : "NOT met")" }
  print(line)
}

var all: [Measurement] = []
var failedCases: [String] = []
for benchmarkCase in cases {
  print("• \(benchmarkCase.name)")
  do {
    let results = try await benchmarkCase.run()
    results.forEach(printMeasurement)
    all.append(contentsOf: results)
  } catch {
    failedCases.append(benchmarkCase.name)
    print("    ✘ FAILED: \(error)")
  }
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
try encoder.encode(all).write(to: URL(fileURLWithPath: jsonPath))
print("Wrote \(all.count) measurements to \(jsonPath)")
let goals = all.compactMap(\.met)
print(
  "Goals met: \(goals.filter { $0 }.count) of \(goals.count) (a missed goal is reported, never a "
    + "failure: speed moves with the machine's load).")
if failedCases.isEmpty {
  print("Every workload did what it should.")
} else {
  print("✘ \(failedCases.count) case(s) FAILED a correctness check: \(failedCases.joined(separator: "; "))")
  exit(1)
}
