/// Looks for a simpler failing schedule than the one exploration found: fewer preemptions, then
/// fewer context switches, then no injected cancellation.
///
/// Greedy, like delta debugging on the list of choices: it replaces one non-default choice at a
/// time with the default choice (keep running the task that ran, or the oldest ready one) — first
/// dropping every later choice, then keeping them where they still fit — and accepts the change
/// when the schedule still fails and is simpler. It stops when no single change helps or after a
/// budget of runs.
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
      if without.failed { best = without }
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
          if candidate.failed && candidate.complexity < best.complexity {
            best = candidate
            improved = true
            break search
          }
        }
      }
    }
    return best
  }
}
