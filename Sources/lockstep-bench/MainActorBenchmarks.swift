import Foundation
import LockstepTesting

// Where most app tests run: a `@MainActor` test. The same workloads as the run-cost case, each
// timed from a `@MainActor` caller and from a nonisolated one, in turns, in the same run. The
// bench's main is asynchronous, so the main actor's jobs run where a Swift Testing test's do: on
// the main queue, which `dispatchMain()` serves from a Dispatch worker thread on Linux.

/// `runs` empty deterministic runs, timed in the caller's isolation.
nonisolated(nonsending) private func emptyRuns(_ runs: Int) async throws -> Double {
  try await seconds { for index in 0..<runs { _ = try await withDeterministicScheduling { index } } }
}

/// `runs` empty deterministic runs, timed from a nonisolated caller.
@concurrent private func emptyRunsNonisolated(_ runs: Int) async throws -> Double {
  try await emptyRuns(runs)
}

/// `runs` empty deterministic runs, timed from a `@MainActor` caller.
@MainActor private func emptyRunsOnMainActor(_ runs: Int) async throws -> Double {
  try await emptyRuns(runs)
}

/// A caller isolated to an actor of its own.
private actor IsolatedCaller {
  /// `runs` empty deterministic runs, timed on this actor.
  func emptyRunsHere(_ runs: Int) async throws -> Double { try await emptyRuns(runs) }
}

/// `count` `Task {}` created and awaited, timed from a nonisolated caller.
@concurrent private func roundTripsNonisolated(_ count: Int) async -> Double {
  await seconds { for index in 0..<count { _ = await Task { index }.value } }
}

/// `count` main-actor `Task {}` created and awaited, timed from a `@MainActor` caller.
@MainActor private func roundTripsOnMainActor(_ count: Int) async -> Double {
  await seconds { for index in 0..<count { _ = await Task { index }.value } }
}

/// `tests` debounce tests, timed in the caller's isolation, one deterministic run each or (with
/// `onScheduler` false) on the normal executors; returns the seconds and how many failed.
nonisolated(nonsending) private func debounceTests(_ tests: Int, onScheduler: Bool) async throws
  -> (Double, Int)
{
  var failures = 0
  let elapsed = try await seconds {
    for _ in 0..<tests {
      let passed =
        onScheduler
        ? try await withDeterministicScheduling({ try await debounceTestWithTestClock() })
        : try await debounceTestWithTestClock()
      if !passed { failures += 1 }
    }
  }
  return (elapsed, failures)
}

/// The debounce tests, timed from a nonisolated caller (without the scheduler, each test hops to
/// the main actor and back).
@concurrent private func debounceTestsNonisolated(_ tests: Int, onScheduler: Bool) async throws
  -> (Double, Int)
{
  try await debounceTests(tests, onScheduler: onScheduler)
}

/// The debounce tests, timed from a `@MainActor` caller.
@MainActor private func debounceTestsOnMainActor(_ tests: Int, onScheduler: Bool) async throws
  -> (Double, Int)
{
  try await debounceTests(tests, onScheduler: onScheduler)
}

/// The medians of the seconds `first` and `second` report, measured in turns. Each runs once first
/// to warm up.
private func inTurns(
  repetitions: Int, _ first: () async throws -> Double, _ second: () async throws -> Double
) async rethrows -> (first: Double, second: Double) {
  _ = try await first()
  _ = try await second()
  var firstSamples: [Double] = []
  var secondSamples: [Double] = []
  for _ in 0..<repetitions {
    firstSamples.append(try await first())
    secondSamples.append(try await second())
  }
  return (median(firstSamples), median(secondSamples))
}

func mainActorCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Main actor: the same runs from a @MainActor caller") {
    let repetitions = quick ? 3 : 7
    let runs = quick ? 2_000 : 20_000
    let (nonisolatedRuns, mainActorRuns) = try await inTurns(repetitions: repetitions) {
      try await emptyRunsNonisolated(runs)
    } _: {
      try await emptyRunsOnMainActor(runs)
    }
    let caller = IsolatedCaller()
    let (nonisolatedRunsAgain, actorRuns) = try await inTurns(repetitions: repetitions) {
      try await emptyRunsNonisolated(runs)
    } _: {
      try await caller.emptyRunsHere(runs)
    }
    let (nonisolatedTrips, mainActorTrips) = await inTurns(repetitions: repetitions) {
      await roundTripsNonisolated(runs)
    } _: {
      await roundTripsOnMainActor(runs)
    }
    let tests = quick ? 200 : 2_000
    var failures = 0
    let (nonisolatedTests, mainActorTests) = try await inTurns(repetitions: repetitions) {
      let (elapsed, failed) = try await debounceTestsNonisolated(tests, onScheduler: true)
      failures += failed
      return elapsed
    } _: {
      let (elapsed, failed) = try await debounceTestsOnMainActor(tests, onScheduler: true)
      failures += failed
      return elapsed
    }
    let (nonisolatedPlain, mainActorPlain) = try await inTurns(repetitions: repetitions) {
      let (elapsed, failed) = try await debounceTestsNonisolated(tests, onScheduler: false)
      failures += failed
      return elapsed
    } _: {
      let (elapsed, failed) = try await debounceTestsOnMainActor(tests, onScheduler: false)
      failures += failed
      return elapsed
    }
    try require(failures == 0, "the debounce test failed \(failures) time(s)")
    let ratio = "@MainActor ÷ nonisolated"
    func perRun(_ seconds: Double) -> Double { seconds / Double(runs) * 1e6 }
    func perTest(_ seconds: Double) -> Double { seconds / Double(tests) * 1e6 }
    return [
      .compared(
        "main-actor", "an empty run from a @MainActor caller, per run", perRun(mainActorRuns), "µs",
        against: "the same from a nonisolated caller", baseline: perRun(nonisolatedRuns),
        ratioIs: ratio, goal: "≤ 2×", met: mainActorRuns <= 2 * nonisolatedRuns
      ).from("@MainActor"),
      .compared(
        "main-actor", "an empty run from a caller isolated to an actor of its own, per run",
        perRun(actorRuns), "µs", against: "the same from a nonisolated caller",
        baseline: perRun(nonisolatedRunsAgain), ratioIs: "actor ÷ nonisolated"
      ).from("actor"),
      .compared(
        "main-actor", "a main-actor Task {} created and awaited from a @MainActor caller",
        perRun(mainActorTrips), "µs", against: "a Task {} on the global executor from a nonisolated caller",
        baseline: perRun(nonisolatedTrips), ratioIs: ratio
      ).from("@MainActor"),
      .compared(
        "main-actor", "the debounce test, one deterministic run per test, from a @MainActor caller",
        perTest(mainActorTests), "µs", against: "the same from a nonisolated caller",
        baseline: perTest(nonisolatedTests), ratioIs: ratio
      ).from("@MainActor"),
      .compared(
        "main-actor", "the debounce test without the scheduler, from a @MainActor caller",
        perTest(mainActorPlain), "µs", against: "the same from a nonisolated caller",
        baseline: perTest(nonisolatedPlain), ratioIs: ratio
      ).from("@MainActor"),
    ]
  }
}
