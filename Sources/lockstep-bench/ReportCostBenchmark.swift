import LockstepTesting

// What a deadlock report costs: the report names where each stuck task waits and where it was
// created, which reads the debug information of the binary. The first report of a process reads
// the line tables and the symbol table once; a later one, of other awaits, reads only the line
// programs that hold its addresses. Measured in this binary (a release build: a debug test
// binary has more debug information; *Performance* gives that figure too).

func reportCostCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Deadlock report: where each stuck task waits, symbolicated") {
    // The run itself, warmed up, so that the first report's figure is the report's.
    _ = try await withDeterministicScheduling { 1 }
    let first = try await seconds { try await expectDeadlock(stuckAtFirstAwaits) }
    let later = try await seconds { try await expectDeadlock(stuckAtOtherAwaits) }
    let plain = try await medianSeconds(repetitions: quick ? 3 : 7) {
      for _ in 0..<10 { _ = try await withDeterministicScheduling { await finishedTasks() } }
    }
    return [
      .compared(
        "report-cost", "the first deadlock report of the process, 4 stuck tasks", first * 1e3, "ms",
        against: "a run of the same tasks that finishes", baseline: plain / 10 * 1e3,
        goal: "≤ 100 ms", met: first <= 0.1),
      .compared(
        "report-cost", "a later deadlock report, at other awaits", later * 1e3, "ms",
        against: "a run of the same tasks that finishes", baseline: plain / 10 * 1e3,
        goal: "≤ 100 ms", met: later <= 0.1),
    ]
  }
}

private func expectDeadlock(_ body: @escaping @Sendable () async -> Void) async throws {
  do {
    try await withDeterministicScheduling { await body() }
  } catch let deadlock as DeterministicDeadlock {
    let text = deadlock.description
    try require(text.contains("waits at"), "the report names no await:\n\(text)")
    return
  }
  throw BenchmarkFailure(description: "the run did not deadlock")
}

@Sendable private func stuckAtFirstAwaits() async {
  for _ in 0..<3 { Task { await neverResumed() } }
  await neverResumed()
}

@Sendable private func stuckAtOtherAwaits() async {
  let (stream, _) = AsyncStream<Int>.makeStream()
  Task { for await _ in stream {} }
  Task { await withTaskGroup(of: Void.self) { group in group.addTask { await neverResumed() } } }
  Task { await neverResumed() }
  await neverResumed()
}

@Sendable private func finishedTasks() async {
  for _ in 0..<3 { await Task {}.value }
}

@inline(never) private func neverResumed() async {
  await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
}
