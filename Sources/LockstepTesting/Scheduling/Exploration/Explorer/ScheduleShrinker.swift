/// Looks for a simpler schedule than the one exploration found that fails the same way: fewer
/// preemptions, then fewer context switches, then no injected cancellation.
///
/// Greedy, like delta debugging on the list of choices: it replaces one non-default choice at a
/// time with the default choice (keep running the task that ran, or the oldest ready one) — first
/// dropping every later choice, then keeping them where they still fit — and accepts the change
/// when the schedule still fails *the same way* and is simpler. The same way: its first failure
/// comes from the same place (``ScheduleOutcome/failureKey``: the source location of the first
/// issue, the type of the error the body threw, or the kind of run failure), so that the reported
/// failures describe the bug found, not another one met on the way. It stops when no single
/// change helps or after a budget of runs.
struct ScheduleShrinker {
  /// The most schedules it runs.
  var budget = 200
  /// Runs one schedule: the choices to follow (`nil`: the default choice; after the plan, default
  /// choices) and the Lockstep wait at which to cancel, if any.
  let run: (_ plan: [Int?], _ cancelAtWait: Int?) async -> ScheduleOutcome

  init(budget: Int = 200, run: @escaping (_ plan: [Int?], _ cancelAtWait: Int?) async -> ScheduleOutcome) {
    self.budget = budget
    self.run = run
  }

  func shrink(_ found: ScheduleOutcome) async -> ScheduleOutcome {
    var best = found
    var runs = 0
    if best.cancelAtWait != nil {
      let plan = best.record.choices.map { Optional($0) }
      let without = await run(plan, nil)
      runs += 1
      if failsTheSameWay(without, as: found) { best = without }
    }
    var improved = true
    while improved && runs < budget {
      improved = false
      search: for index in best.record.points.indices where !best.record.points[index].isDefault {
        // First the default choice here and nothing but default choices after it; then the
        // default choice here with the later choices kept where they still fit.
        let keep = best.record.choices.map { Optional($0) }
        let plans = [Array(keep[..<index]) + [nil], Array(keep[..<index]) + [nil] + keep[(index + 1)...]]
        for plan in plans {
          guard runs < budget else { break search }
          let candidate = await run(plan, best.cancelAtWait)
          runs += 1
          if failsTheSameWay(candidate, as: found) && candidate.complexity < best.complexity {
            best = candidate
            improved = true
            break search
          }
        }
      }
    }
    return best
  }

  private func failsTheSameWay(_ candidate: ScheduleOutcome, as found: ScheduleOutcome) -> Bool {
    candidate.failed && candidate.failureKey == found.failureKey
  }
}
