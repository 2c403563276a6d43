/// The virtual clock of a deterministic run and the jobs sleeping on it.
///
/// Time starts at zero and moves only when the scheduler has nothing ready: it then jumps to the
/// earliest deadline (auto-advance). Sleepers with equal deadlines wake in the order they went to
/// sleep.
struct VirtualTime<Job> {
  struct Sleeper: Comparable {
    let deadline: Duration
    let sequence: UInt64
    let job: Job

    static func < (lhs: Sleeper, rhs: Sleeper) -> Bool {
      (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
    }
    static func == (lhs: Sleeper, rhs: Sleeper) -> Bool {
      lhs.deadline == rhs.deadline && lhs.sequence == rhs.sequence
    }
  }

  /// Virtual time elapsed since the run began.
  private(set) var now: Duration = .zero {
    didSet { nanoseconds = now.wholeNanoseconds }
  }
  /// ``now`` in whole nanoseconds, what the run's clocks read.
  private(set) var nanoseconds: Int64 = 0
  private var sleepers = Heap<Sleeper>()
  private var sequence: UInt64 = 0

  var sleeperCount: Int { sleepers.count }
  var nextDeadline: Duration? { sleepers.min?.deadline }

  /// Records a job that becomes ready `delay` from now (a negative delay counts as zero).
  mutating func schedule(_ job: Job, after delay: Duration) {
    sequence += 1
    sleepers.insert(Sleeper(deadline: now + max(delay, .zero), sequence: sequence, job: job))
  }

  /// Advances the clock to the earliest deadline and returns that sleeper's job.
  mutating func advanceToNext() -> Job? {
    guard let sleeper = sleepers.popMin() else { return nil }
    now = max(now, sleeper.deadline)
    return sleeper.job
  }

  /// Moves the clock forward to `instant` (never backwards).
  mutating func advance(to instant: Duration) { now = max(now, instant) }

  /// Removes every sleeper, returning each job with its remaining delay, earliest first.
  mutating func removeAll() -> [(job: Job, remaining: Duration)] {
    var result: [(Job, Duration)] = []
    while let sleeper = sleepers.popMin() { result.append((sleeper.job, sleeper.deadline - now)) }
    return result
  }
}
