import LockstepTesting

// What progress lines cost per schedule: the same exploration with progress on (a CI log's
// mode: the explorer reads the clock after every schedule and decides whether a line is due)
// and off (LOCKSTEP_PROGRESS=0: no clock read), measured in turns. Each exploration is shorter
// than the quiet start, so no line is written: what is measured is the check every schedule
// pays. The body is as cheap as a schedule gets, so that the check weighs the most.

/// Two tasks that yield once each: a few choice points, almost no work.
@Sendable private func twoYielders() async {
  let first = Task { await Task.yield() }
  let second = Task { await Task.yield() }
  await first.value
  await second.value
}

func progressCostCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Race finder: progress lines on and off") {
    let schedules = quick ? 500 : 5_000
    var results: [ExplorationResult] = []
    nonisolated(nonsending) func exploring(_ mode: ExplorationProgress.Mode) async {
      let output = ProgressReporter.Output(mode: mode) { _ in }
      results.append(
        await ProgressReporter.$override.withValue(output) {
          await explore(.random(schedules: schedules, seed: 1), twoYielders)
        })
    }
    let (on, off) = await alternatingMedianSeconds(repetitions: quick ? 5 : 11) {
      await exploring(.lines)
    } _: {
      await exploring(.off)
    }
    try require(
      results.allSatisfy { $0.schedulesRun == schedules && $0.failure == nil },
      "an exploration did not run its \(schedules) schedules")
    return [
      .compared(
        "progress-on", "random(\(schedules)), progress on, schedules/s", Double(schedules) / on,
        "sched/s", against: "the same exploration with progress off",
        baseline: Double(schedules) / off, goal: "≥ 0.97 (nothing measurable)",
        met: off / on >= 0.97)
    ]
  }
}
