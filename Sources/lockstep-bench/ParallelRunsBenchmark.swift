import Foundation
import LockstepTesting

// Deterministic tests the way Swift Testing runs them by default, in parallel: 16 CPU-bound tests,
// each one deterministic run with a job every 2,000 steps of arithmetic, started together and one
// after another; beside them, their plain twins (the same work on the normal executors).

/// One CPU-bound test body: `jobs` jobs of 2,000 steps of arithmetic each; returns its sum.
private func cpuBoundBody(jobs: Int) async -> UInt64 {
  var sum: UInt64 = 0
  for job in 0..<jobs {
    for step in 0..<2_000 { sum = sum &* 31 &+ UInt64(step ^ job) }
    await Task.yield()  // a job boundary: the run's next job
  }
  return sum
}

/// The 16 tests started together (`parallel`) or one after another, each in a deterministic run
/// when `deterministic`; returns their sums.
private func sixteenTests(parallel: Bool, deterministic: Bool, jobs: Int) async throws -> [UInt64] {
  func test() async throws -> UInt64 {
    deterministic
      ? try await withDeterministicScheduling { await cpuBoundBody(jobs: jobs) }
      : await Task { await cpuBoundBody(jobs: jobs) }.value
  }
  guard parallel else {
    var sums: [UInt64] = []
    for _ in 0..<16 { sums.append(try await test()) }
    return sums
  }
  return try await withThrowingTaskGroup(of: UInt64.self) { group in
    for _ in 0..<16 { group.addTask { try await test() } }
    return try await group.reduce(into: []) { $0.append($1) }
  }
}

func parallelRunsCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Deterministic runs in parallel: 16 CPU-bound tests") {
    let jobs = quick ? 500 : 3_000
    let expected = await cpuBoundBody(jobs: jobs)
    var sums: [UInt64] = []
    let (parallel, serial) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 5) {
      sums += try await sixteenTests(parallel: true, deterministic: true, jobs: jobs)
    } _: {
      sums += try await sixteenTests(parallel: false, deterministic: true, jobs: jobs)
    }
    let (plainParallel, plainSerial) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 5) {
      sums += try await sixteenTests(parallel: true, deterministic: false, jobs: jobs)
    } _: {
      sums += try await sixteenTests(parallel: false, deterministic: false, jobs: jobs)
    }
    try require(sums.allSatisfy { $0 == expected }, "a test's body computed another sum")
    let cores = ProcessInfo.processInfo.activeProcessorCount
    // ≤ 0.6 on 2 cores, and at least 0.9 × cores as fast in general.
    let goal = cores <= 2 ? 0.6 : 1 / (0.9 * Double(cores))
    let ratio = parallel / serial
    return [
      .compared(
        "parallel-runs",
        "16 deterministic tests in parallel, over the same 16 one after another (\(cores) cores)",
        ratio, "×", against: "their plain twins in parallel, over one after another",
        baseline: plainParallel / plainSerial, ratioIs: "the deterministic ratio ÷ the plain one",
        goal: "≤ \(formatted(goal))", met: ratio <= goal),
      .compared(
        "parallel-runs", "16 deterministic tests in parallel, wall time", parallel * 1e3, "ms",
        against: "the same 16 one after another", baseline: serial * 1e3),
    ]
  }
}
