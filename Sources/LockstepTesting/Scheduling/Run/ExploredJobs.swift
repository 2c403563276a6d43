/// The ready jobs of an explored run, in arrival order; a ``SchedulePicker`` chooses which runs
/// next whenever more than one may.
///
/// Main-actor jobs keep their arrival order among themselves, as on the real main queue: only the
/// oldest of them is a candidate. So a choice point is a step with two or more *eligible* jobs,
/// and the picker sees their tasks, oldest first.
struct ExploredJobs<Job: SchedulableJob> {
  private var jobs: [RunEntry<Job>] = []
  private(set) var picker: any SchedulePicker
  /// The tasks the picker chooses among, refilled at every choice: one buffer for the run.
  private var candidates: [Int] = []

  init(picker: any SchedulePicker) {
    self.picker = picker
    // Room for a small run's ready jobs, so that neither grows from empty a doubling at a time.
    jobs.reserveCapacity(8)
    candidates.reserveCapacity(8)
  }

  var count: Int { jobs.count }

  mutating func append(_ entry: RunEntry<Job>) { jobs.append(entry) }

  /// The next job to run, asking the picker when there is a choice; `previous` is the task whose
  /// job ran last, `step` the number (from 0) of the step the job will run as.
  mutating func next(previous: Int, step: Int) -> RunEntry<Job>? {
    guard !jobs.isEmpty else { return nil }
    if jobs.count == 1 { return jobs.removeFirst() }
    // The candidates' tasks only, in the run's one buffer: an array of indices beside it would
    // be allocated and freed at every choice.
    candidates.removeAll(keepingCapacity: true)
    appendEligibleTasks()
    let count = candidates.count
    guard count > 1 else { return jobs.remove(at: eligibleIndex(0)) }
    let picked = picker.pick(among: candidates, previous: previous, step: step)
    return jobs.remove(at: eligibleIndex(min(max(picked, 0), count - 1)))
  }

  /// How many jobs may run next.
  var eligibleCount: Int {
    var count = 0
    var sawMain = false
    for entry in jobs where isEligible(entry, sawMain: &sawMain) { count += 1 }
    return count
  }

  /// Asks the picker to choose among `leading` tasks, the eligible jobs and `trailing` tasks, in
  /// that order: candidates that are not jobs (a job stopped at a lock point, which goes on or
  /// waits, and jobs parked at one, which may resume) beside the ready jobs. There must be two
  /// candidates or more.
  mutating func pick(leading: [Int], trailing: [Int], previous: Int, step: Int) -> CandidatePick<Job> {
    candidates.removeAll(keepingCapacity: true)
    candidates.append(contentsOf: leading)
    appendEligibleTasks()
    let eligible = candidates.count - leading.count
    candidates.append(contentsOf: trailing)
    let count = candidates.count
    let picked = min(max(picker.pick(among: candidates, previous: previous, step: step), 0), count - 1)
    if picked < leading.count { return .leading(picked) }
    if picked < leading.count + eligible {
      return .job(jobs.remove(at: eligibleIndex(picked - leading.count)))
    }
    return .trailing(picked - leading.count - eligible)
  }

  /// The indices of the jobs that may run next: every job but the younger main-actor ones.
  func eligibleIndices() -> [Int] {
    var eligible: [Int] = []
    eligible.reserveCapacity(jobs.count)
    var sawMain = false
    for (index, entry) in jobs.enumerated() where isEligible(entry, sawMain: &sawMain) {
      eligible.append(index)
    }
    return eligible
  }

  /// Appends the tasks of the jobs that may run next, oldest first, to ``candidates``.
  private mutating func appendEligibleTasks() {
    var sawMain = false
    for entry in jobs where isEligible(entry, sawMain: &sawMain) { candidates.append(entry.task) }
  }

  /// The index among the jobs of the eligible one at `position` among the eligible ones.
  private func eligibleIndex(_ position: Int) -> Int {
    var remaining = position
    var sawMain = false
    for (index, entry) in jobs.enumerated() where isEligible(entry, sawMain: &sawMain) {
      if remaining == 0 { return index }
      remaining -= 1
    }
    preconditionFailure("no eligible job at \(position)")
  }

  /// Whether `entry`, met after the jobs before it, may run next: a main-actor job only if no
  /// main-actor job came before (`sawMain`, updated).
  @inline(__always)
  private func isEligible(_ entry: RunEntry<Job>, sawMain: inout Bool) -> Bool {
    guard entry.job.isMainActor else { return true }
    if sawMain { return false }
    sawMain = true
    return true
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
