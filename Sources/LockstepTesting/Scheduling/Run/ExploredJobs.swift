/// The ready jobs of an explored run, in arrival order; a ``SchedulePicker`` chooses which runs
/// next whenever more than one may.
///
/// Main-actor jobs keep their arrival order among themselves, as on the real main queue: only the
/// oldest of them is a candidate. So a choice point is a step with two or more *eligible* jobs,
/// and the picker sees their tasks, oldest first.
struct ExploredJobs<Job: SchedulableJob> {
  private var jobs: [RunEntry<Job>] = []
  private(set) var picker: any SchedulePicker

  init(picker: any SchedulePicker) { self.picker = picker }

  var count: Int { jobs.count }

  mutating func append(_ entry: RunEntry<Job>) { jobs.append(entry) }

  /// The next job to run, asking the picker when there is a choice; `previous` is the task whose
  /// job ran last, `step` the number (from 0) of the step the job will run as.
  mutating func next(previous: Int, step: Int) -> RunEntry<Job>? {
    guard !jobs.isEmpty else { return nil }
    if jobs.count == 1 { return jobs.removeFirst() }
    let eligible = eligibleIndices()
    guard eligible.count > 1 else { return jobs.remove(at: eligible[0]) }
    let picked = picker.pick(among: eligible.map { jobs[$0].task }, previous: previous, step: step)
    return jobs.remove(at: eligible[min(max(picked, 0), eligible.count - 1)])
  }

  /// The indices of the jobs that may run next: every job but the younger main-actor ones.
  func eligibleIndices() -> [Int] {
    var eligible: [Int] = []
    eligible.reserveCapacity(jobs.count)
    var sawMain = false
    for (index, entry) in jobs.enumerated() {
      if entry.job.isMainActor {
        if sawMain { continue }
        sawMain = true
      }
      eligible.append(index)
    }
    return eligible
  }

  mutating func removeAll() -> [RunEntry<Job>] {
    defer { jobs.removeAll() }
    return jobs
  }
}
