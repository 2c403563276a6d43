import LockstepInterposition
import LockstepInterposition.BenchHooks
import LockstepTesting

// What seeing every task creation costs now that LockstepTesting stands in for the runtime's
// `swift_task_create` (Linux): outside a run every creation passes through a thread-local check;
// inside one the run is told the task's name and where it was created. The baselines are measured
// in the same run: the hook's own work around a runtime that creates nothing against that runtime
// called directly, and tasks created in a run with the run's observation switched off on its
// thread.

func taskCreationCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Task creation: the swift_task_create stand-in outside and inside runs") {
    // `Task(name:)` needs the 26 releases on Apple platforms (where nothing stands in anyway).
    guard #available(LockstepTaskNames , *) else { return [] }
    let calls = quick ? 1_000_000 : 10_000_000
    let repetitions = quick ? 3 : 7
    var sink: UInt = 0
    let (hooked, direct) = await alternatingMedianSeconds(repetitions: repetitions) {
      for index in 0..<calls { sink &+= lockstep_task_creation_measure_hook(index) }
    } _: {
      for index in 0..<calls { sink &+= lockstep_task_creation_measure_direct(index) }
    }
    try require(sink != 0, "")
    let added = (hooked - direct) / Double(calls) * 1e9
    var results: [Measurement] = [
      .compared(
        "task-creation", "the stand-in's own work for one task created outside runs, per task",
        hooked / Double(calls) * 1e9, "ns",
        against: "the runtime it forwards to called directly (a stub that creates nothing)",
        baseline: direct / Double(calls) * 1e9, ratio: added, ratioIs: "ns added per task",
        goal: "≤ 50 ns added", met: added <= 50)
    ]
    let tasks = quick ? 20_000 : 200_000
    let outside = await medianSeconds(repetitions: repetitions) {
      for _ in 0..<tasks { await Task(name: "bench") {}.value }
    }
    results.append(
      .figure(
        "task-creation", "Task(name:) created and awaited outside runs, through the stand-in, per task",
        outside / Double(tasks) * 1e9, "ns"))
    let inRun = quick ? 500 : 2_000
    let runs = quick ? 10 : 40
    var named = 0
    let (observed, unobserved) = try await alternatingMedianSeconds(repetitions: repetitions) {
      for _ in 0..<runs {
        let outcome = try await runDeterministically { await createAndAwait(inRun) }
        named = outcome.trace.taskNames.count
      }
    } _: {
      for _ in 0..<runs {
        _ = try await runDeterministically {
          var none = lockstep_run_context()
          var saved = lockstep_run_context()
          lockstep_run_context_enter(&none, .creation_run, &saved)
          defer { lockstep_run_context_leave(&saved, .creation_run) }
          await createAndAwait(inRun)
        }
      }
    }
    let perTask = { (seconds: Double) in seconds / Double(runs * inRun) * 1e9 }
    results.append(
      .compared(
        "task-creation", "Task(name:) created and awaited inside a run, told to the run, per task",
        perTask(observed), "ns",
        against: "the same with the run's observation off on its thread", baseline: perTask(unobserved),
        ratio: perTask(observed) - perTask(unobserved), ratioIs: "ns added per task"))
    // All of them where the stand-in is in effect (its probe passed), none where it is not.
    try require(named == inRun || named == 0, "a run named \(named) of its \(inRun) tasks")
    results.append(
      .figure("task-creation", "tasks of such a run named from their creation", Double(named), "tasks"))
    return results
  }
}

/// Creates `count` named tasks, then awaits them.
@available(LockstepTaskNames, *)
private func createAndAwait(_ count: Int) async {
  var tasks: [Task<Void, Never>] = []
  tasks.reserveCapacity(count)
  for _ in 0..<count { tasks.append(Task(name: "worker") {}) }
  for task in tasks { await task.value }
}
