import Foundation
import LockstepExamples
import LockstepTesting

// TestClock benchmarks:
// 1. the scenario-3 debounce test with a TestClock, against the same model tested with real
//    sleeps (ContinuousClock, Task.sleep), per iteration, in the same run;
// 2. N sleepers with deadlines 1…N ms, run() through all of them, for growing N: the growth
//    exponent between sizes must stay near 1 (n log n), far from 2 (n²).
//
// `--only clock` (any case-name substring, case-insensitive) runs only the matching cases.

/// Records the queries it is asked for and answers at once.
private final class RecordingSearchBackend: SearchBackend {
  let requests = EventRecorder<String>("search requests")

  func search(_ query: String) async throws -> [String] {
    requests.record(query)
    return ["results for \(query)"]
  }
}

private let keystrokes = ["s", "sw", "swi", "swif", "swift"]

/// The scenario-3 test as written with Lockstep: five keystrokes, nothing at 79 ms, one request
/// for the last query at 80 ms. Returns whether it passed.
@MainActor
func debounceTestWithTestClock() async throws -> Bool {
  let clock = TestClock()
  let tasks = TestTaskFactory()
  let backend = RecordingSearchBackend()
  let search = DebouncedSearch(backend: backend, clock: clock, tasks: tasks)
  for text in keystrokes { search.textChanged(text) }
  try await clock.waitForSleepers(count: 1)
  await clock.advance(by: .milliseconds(79))
  let early = backend.requests.count
  await clock.advance(by: .milliseconds(1))
  try await tasks.waitUntilIdle()
  return early == 0 && backend.requests.values == ["swift"] && search.results == ["results for swift"]
}

/// The same test written with real time: the model sleeps on a `ContinuousClock` and the test
/// sleeps to 79 ms, checks, then sleeps to 100 ms (a small margin for the request to go out).
@MainActor
private func debounceTestWithRealSleeps() async throws -> Bool {
  let backend = RecordingSearchBackend()
  let search = DebouncedSearch(backend: backend, clock: ContinuousClock(), tasks: .live)
  for text in keystrokes { search.textChanged(text) }
  try await Task.sleep(for: .milliseconds(79))
  let early = backend.requests.count
  try await Task.sleep(for: .milliseconds(21))
  return early == 0 && backend.requests.values == ["swift"]
}

func debounceClockCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "TestClock: debounce test (scenario 3) vs real sleeps") {
    let iterations = quick ? 200 : 2_000
    var failures = 0
    let lockstep = try await medianSeconds(repetitions: quick ? 3 : 7) {
      for _ in 0..<iterations where try await !debounceTestWithTestClock() { failures += 1 }
    }
    try require(failures == 0, "the TestClock debounce test failed \(failures) time(s)")
    let perIteration = lockstep / Double(iterations)
    // The baseline can fail on a loaded machine (a test sleep that returns late sees the request
    // already sent): that is the flakiness Lockstep removes, so it is counted, not a failure.
    var realRuns = 0
    var realFailures = 0
    let real = try await medianSeconds(repetitions: quick ? 1 : 3) {
      realRuns += 1
      if try await !debounceTestWithRealSleeps() { realFailures += 1 }
    }
    // The same test, every job of it on the deterministic scheduler's one thread: the hops between
    // the main actor and the pool become plain function calls instead of thread wake-ups.
    var scheduledFailures = 0
    let scheduled = try await medianSeconds(repetitions: quick ? 3 : 7) {
      scheduledFailures += try await withDeterministicScheduling(timeout: .seconds(600)) {
        var failed = 0
        for _ in 0..<iterations where try await !debounceTestWithTestClock() { failed += 1 }
        return failed
      }
    }
    try require(
      scheduledFailures == 0,
      "the TestClock debounce test failed \(scheduledFailures) time(s) on the scheduler")
    let scheduledPerIteration = scheduled / Double(iterations)
    let realTest = "the same test with real sleeps (ContinuousClock, Task.sleep)"
    return [
      .compared(
        "TestClock debounce", "debounce test with TestClock, per test", perIteration * 1e6, "µs",
        against: realTest, baseline: real * 1e6, ratio: real / perIteration,
        ratioIs: "speed-up (baseline ÷ value)", goal: "≥ 5000×", met: real / perIteration >= 5_000),
      .compared(
        "TestClock debounce", "the same on the deterministic scheduler, per test",
        scheduledPerIteration * 1e6, "µs", against: realTest, baseline: real * 1e6,
        ratio: real / scheduledPerIteration, ratioIs: "speed-up (baseline ÷ value)",
        goal: "≥ 5000×", met: real / scheduledPerIteration >= 5_000),
      .figure(
        "TestClock debounce", "real-sleep test runs that failed (of \(realRuns))",
        Double(realFailures), "runs"),
    ]
  }
}

/// Starts `count` tasks sleeping until 1…`count` ms (started in a shuffled order), waits until all
/// are registered, then `run()`s the clock through every deadline. Returns the seconds spent
/// registering and advancing.
private func sleepers(_ count: Int) async throws -> (register: Double, advance: Double) {
  let clock = TestClock()
  var generator = SystemRandomNumberGenerator()
  let deadlines = (1...count).shuffled(using: &generator)
  var handles: [Task<Bool, Never>] = []
  handles.reserveCapacity(count)
  let register = try await seconds {
    for deadline in deadlines {
      handles.append(
        Task.detached {
          (try? await clock.sleep(until: .zero.advanced(by: .milliseconds(deadline)))) != nil
        })
    }
    try await clock.waitForSleepers(count: count, timeout: .seconds(120))
  }
  var woken = 0
  let advance = await seconds {
    woken = await clock.run(timeout: .seconds(120))
  }
  var returned = 0
  for handle in handles where await handle.value { returned += 1 }
  try require(returned == count, "\(count - returned) of \(count) sleeps threw instead of returning")
  try require(
    woken == count && clock.now.offset == .milliseconds(count) && clock.sleeperCount == 0,
    "run() woke \(woken) of \(count) sleepers and stopped at \(clock.now) with "
      + "\(clock.sleeperCount) still asleep (expected all \(count), at \(count) ms)")
  return (register, advance)
}

func sleepersClockCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "TestClock: N sleepers, run() through deadlines 1…N ms") {
    let sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]
    var advancing: [Double] = []
    var total: [Double] = []
    for size in sizes {
      _ = try await sleepers(size)  // warm up
      var samples: [(register: Double, advance: Double)] = []
      for _ in 0..<(size >= 100_000 ? 3 : 5) { samples.append(try await sleepers(size)) }
      let advance = samples.map(\.advance).sorted()[samples.count / 2]
      let both = samples.map { $0.register + $0.advance }.sorted()[samples.count / 2]
      advancing.append(advance)
      total.append(both)
    }
    var results: [Measurement] = []
    for (index, size) in sizes.enumerated() {
      results.append(
        .figure(
          "TestClock sleepers", "N = \(size): run() per sleeper",
          advancing[index] / Double(size) * 1e6, "µs"))
    }
    for index in sizes.indices.dropFirst() {
      let growth = Double(sizes[index]) / Double(sizes[index - 1])
      for (label, times) in [("run()", advancing), ("sleep + run()", total)] {
        let exponent = log(times[index] / times[index - 1]) / log(growth)
        results.append(
          .compared(
            "TestClock sleepers", "\(label), N = \(sizes[index])", times[index] * 1e3, "ms",
            against: "the same at N = \(sizes[index - 1])", baseline: times[index - 1] * 1e3,
            ratio: exponent, ratioIs: "growth exponent (n log n ≈ 1.1, n² = 2)", goal: "≤ 1.3",
            met: exponent <= 1.3))
      }
    }
    return results
  }
}
