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

  init(_ order: Order) {
    switch order {
    case .fifo: queue = ReadyQueue(seed: nil)
    case .seeded(let seed): queue = ReadyQueue(seed: seed)
    case .picked(let picker):
      queue = ReadyQueue(seed: nil)
      explored = ExploredJobs(picker: picker)
    }
  }

  var count: Int { explored?.count ?? queue.count }

  /// The exploration's picker, with the choices it made so far.
  var picker: (any SchedulePicker)? { explored?.picker }

  mutating func append(_ entry: RunEntry<Job>) {
    if explored != nil {
      explored!.append(entry)
    } else {
      queue.append(entry, serial: entry.job.isMainActor)
    }
  }

  /// The next job to run, or `nil` when none is ready; `previous` is the task whose job ran last,
  /// `step` the number (from 0) of the step it will run as.
  mutating func next(previous: Int, step: Int) -> RunEntry<Job>? {
    explored != nil ? explored!.next(previous: previous, step: step) : queue.next()
  }

  /// Removes every ready job.
  mutating func removeAll() -> [RunEntry<Job>] {
    explored != nil ? explored!.removeAll() : queue.removeAll()
  }
}
