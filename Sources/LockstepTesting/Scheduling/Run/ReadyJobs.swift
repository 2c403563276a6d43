/// The ready jobs of a run, handed out in the order the run was asked for: arrival order, a
/// seeded pseudo-random order (both by ``ReadyQueue``), or the choices of an exploration's
/// ``SchedulePicker`` (by ``ExploredJobs``).
struct ReadyJobs<Job: SchedulableJob> {
  /// How a run orders its ready jobs.
  enum Order {
    /// First in, first out.
    case fifo
    /// Pseudo-random, reproducible from the seed.
    case seeded(UInt64)
    /// Chosen at every choice point by an exploration's picker.
    case picked(any SchedulePicker)
  }

  private var queue: ReadyQueue<RunEntry<Job>>
  /// Set when the order is `.picked`; the queue is unused then.
  private var explored: ExploredJobs<Job>?
  /// Whether `explored` is set. Asked on every job instead of `explored != nil`: the optional's
  /// payload holds an existential, and testing or copying it goes through runtime value witnesses.
  private let isExplored: Bool

  init(_ order: Order) {
    switch order {
    case .fifo:
      queue = ReadyQueue(seed: nil)
      isExplored = false
    case .seeded(let seed):
      queue = ReadyQueue(seed: seed)
      isExplored = false
    case .picked(let picker):
      queue = ReadyQueue(seed: nil, capacity: 0)  // unused
      explored = ExploredJobs(picker: picker)
      isExplored = true
    }
  }

  var count: Int { isExplored ? explored!.count : queue.count }

  /// The exploration's picker, with the choices it made so far.
  var picker: (any SchedulePicker)? { isExplored ? explored!.picker : nil }

  mutating func append(_ entry: RunEntry<Job>) {
    if isExplored {
      explored!.append(entry)
    } else {
      queue.append(entry, serial: entry.job.isMainActor)
    }
  }

  /// The next job to run, or `nil` when none is ready; `previous` is the task whose job ran last,
  /// `step` the number (from 0) of the step it will run as.
  mutating func next(previous: Int, step: Int) -> RunEntry<Job>? {
    isExplored ? explored!.next(previous: previous, step: step) : queue.next()
  }

  /// Whether an exploration's picker orders the jobs: only then is a lock point a choice point.
  var isPicked: Bool { isExplored }

  /// How many jobs may run next (explored runs only: the others count every ready job).
  var eligibleCount: Int { isExplored ? explored!.eligibleCount : queue.count }

  /// Asks the exploration's picker to choose among `leading` tasks, the eligible jobs and
  /// `trailing` tasks; explored runs only, with two candidates or more.
  mutating func pick(leading: [Int], trailing: [Int], previous: Int, step: Int) -> CandidatePick<Job> {
    explored!.pick(leading: leading, trailing: trailing, previous: previous, step: step)
  }

  /// Removes every ready job.
  mutating func removeAll() -> [RunEntry<Job>] {
    isExplored ? explored!.removeAll() : queue.removeAll()
  }
}
