/// The work a run's jobs handed to other threads that has not returned yet: blocks queued on
/// Dispatch queues other than the main queue, threads, and what those started in turn. While any
/// is in flight the run declares no deadlock, and while a block or a thread runs it keeps virtual
/// time still (``RunState/next(previousStepSuspendedAt:ranInActorJob:)``), as Go's `synctest`
/// keeps a bubble's clock still while a goroutine is not durably blocked: work that waits where
/// Lockstep sees it, without a timeout on what the run made (a semaphore, a group, a condition) or
/// in a blocking sleep, rests meanwhile.
struct OutsideWork {
  /// What one piece of outside work is: the stand-ins report it as one of the `lockstep_outside_*`
  /// constants of `Dispatch.h` (`OutsideWorkTracking.kind(reported:)`).
  enum Kind: Sendable {
    case async
    case after
    case groupAsync
    case groupNotify
    /// A thread (`Thread`, `pthread_create`; XCTest waits for expectations on one).
    case thread
    /// A Dispatch source's registration handler, from when it is set until it has run.
    case sourceRegistration
    /// Not work: a Dispatch source's event handler set by the run (never in flight itself).
    case sourceOwner
    /// One run of a Dispatch source's event handler.
    case sourceEvent
    /// A signal the run sent its own process, until a Dispatch source's event handler runs.
    case signal
    /// The thread XCTest waits for expectations on: it holds time except while its run loop
    /// waits, for a time the run counts in virtual time.
    case expectationWaiter

    /// Whether virtual time stands still while work of this kind is in flight and does not rest:
    /// a block queued to run now and a thread do their work, and a signal is on its way. A block
    /// that waits first (a real delay, a group, a source's registration) holds time once it runs,
    /// as a block of its own. Those hold back only deadlock reports.
    var holdsTime: Bool {
      switch self {
      case .async, .groupAsync, .sourceEvent, .signal, .expectationWaiter, .thread: true
      case .after, .groupNotify, .sourceRegistration, .sourceOwner: false
      }
    }
  }

  /// One piece of outside work in flight.
  struct Record: Equatable {
    let kind: Kind
    /// The label of the queue the block was queued on, if it has one.
    let label: String?
    /// The queue the block was queued on, by address (`nil` for a thread).
    var queue: UInt? = nil
    /// The task whose job started it, when a job of the run did (0 for a job of no task).
    let startedBy: Int?
    /// The step during which it started, when a job of the run started it.
    let step: Int?

    /// `a block queued with DispatchQueue.async on "com.example.io" by task 3 at step 12`.
    var description: String {
      var text: String
      switch kind {
      case .async: text = "a block queued with DispatchQueue.async"
      case .after: text = "a block queued with DispatchQueue.asyncAfter (a real delay)"
      case .groupAsync: text = "a block queued with DispatchQueue.async(group:)"
      case .groupNotify: text = "a DispatchGroup.notify block (waits for the group's blocks)"
      case .thread: text = "a thread (a Thread, or XCTest's wait for expectations)"
      case .sourceRegistration: text = "a Dispatch source's registration handler (not run yet)"
      case .sourceOwner: text = "a Dispatch source's event handler"
      case .sourceEvent: text = "a Dispatch source's event handler"
      case .signal: text = "a signal the run sent its own process (no Dispatch source has handled it)"
      case .expectationWaiter: text = "XCTest's wait for expectations"
      }
      if let label, !label.isEmpty { text += " on \"\(label)\"" }
      if let startedBy, let step {
        text += startedBy == 0 ? ", at step \(step + 1)" : " by task \(startedBy) at step \(step + 1)"
      } else {
        text += ", by other outside work"
      }
      return text
    }
  }

  private var records: [UInt64: Record] = [:]
  private var nextID: UInt64 = 1
  /// How many pieces of outside work the run has seen start.
  private(set) var started = 0
  /// The work that waits for a time the run counts (XCTest's waiter in its run loop): it holds
  /// neither time nor the next job.
  private var resting: Set<UInt64> = []
  /// The work the run woke from a rest (its time was over, or a job ended the wait): the run
  /// waits for it before its next job, so that every run of a seed takes the same steps.
  private var woken: Set<UInt64> = []
  /// What resting work waits on, where it waits on an object (a semaphore, a group, a condition).
  private var restingOn: [UInt64: UInt] = [:]
  /// How many waits on each object a signal ended whose work is not back yet: time stands still
  /// until it is.
  private var wakesOnTheirWay: [UInt: Int] = [:]

  var isEmpty: Bool { records.isEmpty }

  /// Whether virtual time stands still: work that holds it is in flight, or on its way back from a
  /// wait a signal ended.
  var holdsTime: Bool {
    !wakesOnTheirWay.isEmpty || records.contains { $0.value.kind.holdsTime && !resting.contains($0.key) }
  }

  /// Whether the run waits for work it woke before its next job.
  var hasWokenWork: Bool { !woken.isEmpty }

  /// Whether a block is queued on `queue`, or runs there: a `sync` call for that queue waits for
  /// it. (A block still waiting for its delay or its group is not on the queue yet.)
  func hasWork(onQueue queue: UInt) -> Bool {
    records.values.contains { $0.queue == queue && ($0.kind == .async || $0.kind == .groupAsync) }
  }

  /// The queue the work of `id` was queued on, if it is a block in flight.
  func queue(of id: UInt64) -> UInt? { records[id]?.queue }

  /// Whether `id` rests now.
  func isResting(_ id: UInt64) -> Bool { resting.contains(id) }

  /// The work of `id` waits for a time the run counts, or on `object`; `false` when it is not in
  /// flight.
  mutating func rest(_ id: UInt64, on object: UInt? = nil) -> Bool {
    guard records[id] != nil else { return false }
    resting.insert(id)
    if let object { restingOn[id] = object }
    woken.remove(id)
    return true
  }

  /// `object` was signalled (`all` its waiters, a group that became empty): as many of the waits
  /// resting on it are on their way back, and hold time until they are.
  mutating func signalled(_ object: UInt, all: Bool) {
    let waiting = restingOn.values.count { $0 == object }
    guard waiting > 0 else { return }
    wakesOnTheirWay[object] = all ? waiting : min(waiting, wakesOnTheirWay[object, default: 0] + 1)
  }

  /// The wait of `id` on an object returned: the work goes on.
  mutating func waitReturned(_ id: UInt64) {
    resting.remove(id)
    guard let object = restingOn.removeValue(forKey: id), let onTheirWay = wakesOnTheirWay[object] else {
      return
    }
    wakesOnTheirWay[object] = onTheirWay > 1 ? onTheirWay - 1 : nil
  }

  /// The work of `id` goes on: woken by the run (`byRun`), or back by itself.
  mutating func wake(_ id: UInt64, byRun: Bool) {
    guard records[id] != nil, resting.remove(id) != nil || byRun else { return }
    if byRun { woken.insert(id) }
  }

  /// The work in flight, oldest first, as a report lists it.
  var inFlight: [Record] { records.sorted { $0.key < $1.key }.map(\.value) }

  /// Records work that starts now; returns its id.
  mutating func begin(_ record: Record) -> UInt64 {
    defer { nextID += 1 }
    records[nextID] = record
    // The run waits for a new waiter until it first rests: where the wait begins is a step of
    // every run of a seed.
    if record.kind == .expectationWaiter { woken.insert(nextID) }
    started += 1
    return nextID
  }

  /// Records that the work of `id` returned; `true` when it was in flight.
  mutating func end(_ id: UInt64) -> Bool {
    if restingOn[id] != nil { waitReturned(id) }
    resting.remove(id)
    woken.remove(id)
    return records.removeValue(forKey: id) != nil
  }

  /// Records that every piece of work of `kind` returned: the signals, once a source handled one.
  mutating func endAll(_ kind: Kind) {
    records = records.filter { $0.value.kind != kind }
  }
}
