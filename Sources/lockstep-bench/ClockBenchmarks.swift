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
private func debounceTestWithTestClock() async throws -> Bool {
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
    let perIteration = lockstep / Double(iterations)
    var realFailures = 0
    let real = try await medianSeconds(repetitions: quick ? 1 : 3) {
      if try await !debounceTestWithRealSleeps() { realFailures += 1 }
    }
    let speedUp = real / perIteration
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
    let scheduledPerIteration = scheduled / Double(iterations)
    let scheduledSpeedUp = real / scheduledPerIteration
    if scheduledFailures > 0 { print("    (failed runs under the scheduler: \(scheduledFailures))") }
    if failures > 0 || realFailures > 0 {
      print("    (failed runs: \(failures) with TestClock, \(realFailures) with real sleeps)")
    }
    return [
      Measurement(
        benchmarkCase: "TestClock debounce", metric: "debounce test, TestClock, per iteration",
        value: perIteration * 1e6, unit: "µs", baseline: real * 1e6, ratio: perIteration / real,
        goal: "well under 1 ms, zero failures", met: perIteration < 1e-3 && failures == 0),
      Measurement(
        benchmarkCase: "TestClock debounce", metric: "debounce test, real Task.sleep, per run",
        value: real * 1e3, unit: "ms", baseline: nil, ratio: nil, goal: "baseline", met: nil),
      Measurement(
        benchmarkCase: "TestClock debounce", metric: "speed-up (real / TestClock)",
        value: speedUp, unit: "×", baseline: nil, ratio: speedUp, goal: "≥ 5000×",
        met: speedUp >= 5_000),
      Measurement(
        benchmarkCase: "TestClock debounce",
        metric: "debounce on the scheduler, per iteration",
        value: scheduledPerIteration * 1e6, unit: "µs", baseline: real * 1e6,
        ratio: scheduledPerIteration / real, goal: "zero failures", met: scheduledFailures == 0),
      Measurement(
        benchmarkCase: "TestClock debounce",
        metric: "speed-up on the scheduler (real / it)",
        value: scheduledSpeedUp, unit: "×", baseline: nil, ratio: scheduledSpeedUp,
        goal: "≥ 5000×", met: scheduledSpeedUp >= 5_000),
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
  var handles: [Task<Void, Never>] = []
  handles.reserveCapacity(count)
  let register = try await seconds {
    for deadline in deadlines {
      handles.append(
        Task.detached {
          try? await clock.sleep(until: .zero.advanced(by: .milliseconds(deadline)))
        })
    }
    try await clock.waitForSleepers(count: count, timeout: .seconds(120))
  }
  var woken = 0
  let advance = await seconds {
    woken = await clock.run(timeout: .seconds(120))
  }
  for handle in handles { await handle.value }
  if woken != count || clock.now.offset != .milliseconds(count) {
    print("    (run woke \(woken) of \(count); now \(clock.now))")
  }
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
        Measurement(
          benchmarkCase: "TestClock sleepers", metric: "N = \(size): run() per sleeper",
          value: advancing[index] / Double(size) * 1e6, unit: "µs", baseline: nil, ratio: nil,
          goal: "-", met: nil))
    }
    for index in sizes.indices.dropFirst() {
      let growth = Double(sizes[index]) / Double(sizes[index - 1])
      for (label, times) in [("run()", advancing), ("sleep + run()", total)] {
        let exponent = log(times[index] / times[index - 1]) / log(growth)
        results.append(
          Measurement(
            benchmarkCase: "TestClock sleepers",
            metric: "exponent \(label), N \(sizes[index - 1] / 1_000)k→\(sizes[index] / 1_000)k",
            value: times[index] * 1e3, unit: "ms", baseline: times[index - 1] * 1e3, ratio: exponent,
            goal: "≤ 1.3 (n log n ≈ 1.1, n² = 2)", met: exponent <= 1.3))
      }
    }
    return results
  }
}
