import Foundation
import LockstepTesting

// What one deterministic run costs, the way a test pays it: a fresh run per test. The baseline is
// the cheapest asynchronous round trip there is on the normal executors, a `Task {}` created and
// awaited, measured in the same run.

func runCostCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Deterministic run: the fixed cost of one run") {
    let runs = quick ? 2_000 : 20_000
    var values: [Int] = []
    let (empty, roundTrip) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
      for index in 0..<runs { values.append(try await withDeterministicScheduling { index }) }
    } _: {
      for index in 0..<runs { _ = await Task { index }.value }
    }
    try require(
      values.count >= runs && values.suffix(runs) == Array(0..<runs),
      "the runs returned \(values.suffix(runs).prefix(3))… instead of their bodies' values")
    let perRun = empty / Double(runs) * 1e6
    let perTrip = roundTrip / Double(runs) * 1e6

    // The scenario-3 debounce test the way a test suite runs it: one deterministic run per test
    // (the `.deterministic` trait, or `withDeterministicScheduling` around the test's body).
    let tests = quick ? 200 : 2_000
    var failures = 0
    let (scheduled, plain) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
      for _ in 0..<tests {
        if try await !withDeterministicScheduling({ try await debounceTestWithTestClock() }) {
          failures += 1
        }
      }
    } _: {
      for _ in 0..<tests where try await !debounceTestWithTestClock() { failures += 1 }
    }
    try require(failures == 0, "the debounce test failed \(failures) time(s)")
    let perTest = scheduled / Double(tests) * 1e6
    let perPlainTest = plain / Double(tests) * 1e6
    return [
      .compared(
        "run-cost", "the debounce test (scenario 3), one deterministic run per test", perTest, "µs",
        against: "the same test on the normal executors", baseline: perPlainTest,
        goal: "≤ 30 µs", met: perTest <= 30),
      .compared(
        "run-cost", "an empty run (withDeterministicScheduling { }), per run", perRun, "µs",
        against: "a Task {} created and awaited on the global executor", baseline: perTrip,
        goal: "≤ 10 µs", met: perRun <= 10),
    ]
  }
}
