import Dispatch
import LockstepTesting

// What parking a job costs (Linux): a run whose body waits on a semaphore that a task of the run
// signals — the job parks on its thread, a helper thread drains the run, the task signals, the
// job resumes — against the same run with the task's value awaited instead. Nonisolated caller.
// Elsewhere the wait is not parked (it would block the run's thread), and the case measures nothing.

func parkedWaitCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Parked wait: a semaphore bridge in a run, against an await") {
    #if os(Linux)
      let runs = quick ? 200 : 2_000
      let (bridged, awaited) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
        for _ in 0..<runs { _ = try await withDeterministicScheduling { bridge() } }
      } _: {
        for _ in 0..<runs { _ = try await withDeterministicScheduling { await Task { 42 }.value } }
      }
      return [
        .compared(
          "parked-wait", "a run whose body waits on a semaphore a task of the run signals, per run",
          bridged / Double(runs) * 1e6, "µs",
          against: "the same run awaiting the task's value", baseline: awaited / Double(runs) * 1e6,
          goal: "≤ 200 µs", met: bridged / Double(runs) <= 200e-6)
      ]
    #else
      return []
    #endif
  }
}

/// Legacy bridging code: the answer comes from a task, the caller blocks until it does.
private func bridge() -> Int {
  let answered = DispatchSemaphore(value: 0)
  Task { answered.signal() }
  answered.wait()
  return 42
}
