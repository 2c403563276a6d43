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

  /// How many jobs may run next.
  var eligibleCount: Int { jobs.isEmpty ? 0 : eligibleIndices().count }

  /// Asks the picker to choose among `leading` tasks, the eligible jobs and `trailing` tasks, in
  /// that order: candidates that are not jobs (a job stopped at a lock point, which goes on or
  /// waits, and jobs parked at one, which may resume) beside the ready jobs. There must be two
  /// candidates or more.
  mutating func pick(leading: [Int], trailing: [Int], previous: Int, step: Int) -> CandidatePick<Job> {
    let eligible = eligibleIndices()
    let tasks = leading + eligible.map { jobs[$0].task } + trailing
    let picked = min(max(picker.pick(among: tasks, previous: previous, step: step), 0), tasks.count - 1)
    if picked < leading.count { return .leading(picked) }
    if picked < leading.count + eligible.count {
      return .job(jobs.remove(at: eligible[picked - leading.count]))
    }
    return .trailing(picked - leading.count - eligible.count)
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

/// What a picker chose among ready jobs and other candidates (``ExploredJobs/pick(leading:trailing:previous:step:)``).
enum CandidatePick<Job: SchedulableJob> {
  /// The leading candidate of this index.
  case leading(Int)
  /// This ready job, taken out of the ready ones.
  case job(RunEntry<Job>)
  /// The trailing candidate of this index.
  case trailing(Int)
}
