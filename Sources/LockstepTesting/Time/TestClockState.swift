/// The pure state machine behind ``TestClock``: the current time, the suspended sleepers ordered by
/// deadline, and the tests waiting for sleepers. It decides; the clock applies the decisions
/// (resumes continuations, reports misuse) outside its lock.
///
/// Generic over the waiter token so it can be tested without threads or continuations.
///
/// A sleeper goes through these phases, each a decision of this type:
/// 1. `sleep` — registered (suspended), or told to return at once (deadline not in the future) or
///    to throw (its task was already cancelled: never counted as a sleeper).
/// 2. `cancel` — removed before it was woken; the caller resumes it with `CancellationError`.
///    Cancelling a sleeper that is not registered (not yet, or not any more) does nothing.
/// 3. `advance` — woken: removed from the sleepers, returned in deadline order (ties in
///    registration order) and remembered as *resumed* until…
/// 4. `returned` — its `sleep` call has returned in its own task.
///
/// The clock's timeline is shared with every `TestQueue` created on it: their scheduled work
/// lives here too, in a second heap ordered like the sleepers (deadline, then one sequence
/// number shared with the sleepers), so that ``takeNextEvent(upTo:)`` can hand out sleepers and
/// work items interleaved in deadline order.
struct TestClockState<Waiter> {
  /// What happened to a sleeper that arrived.
  enum SleepDecision {
    /// Stored: the sleeper suspends. `satisfied` are the sleeper-count watchers to resume.
    case suspended(satisfied: [Waiter])
    /// The deadline is not in the future: return without suspending.
    case elapsed
    /// The sleeper's task was already cancelled: throw `CancellationError`, never counted.
    case cancelled
  }

  /// What an advance decided.
  enum AdvanceDecision {
    /// Time moved to the target; these sleepers are due, in the order to resume them.
    case advanced(woken: [(id: WaiterID, waiter: Waiter)])
    /// The target is earlier than `now`: a misuse; time did not move.
    case backwards(now: Duration)
  }

  /// Work scheduled on a `TestQueue` of this clock, waiting for its deadline.
  struct PendingWork {
    let id: WaiterID
    /// The queue it was scheduled on.
    let queue: WaiterID
    let deadline: Duration
    let site: CallSite
    let body: @Sendable () -> Void
  }

  /// The next thing that happens on the timeline.
  enum Event {
    /// A sleeper is due: resume it (it was moved to the resumed sleepers).
    case sleeper(id: WaiterID, waiter: Waiter)
    /// A work item is due: run it (it was removed from the pending work).
    case work(PendingWork)
  }

  /// One heap entry. Ordered by deadline, then by registration.
  private struct Entry: Comparable {
    let deadline: Duration
    let sequence: UInt64
    let id: WaiterID

    static func < (lhs: Entry, rhs: Entry) -> Bool {
      (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
    }
  }

  /// The current time, as an offset from the clock's zero.
  private(set) var now: Duration = .zero
  /// Deadlines of registered sleepers. Entries of cancelled sleepers stay until they reach the
  /// top (or a compaction removes them): `sleepers` is the truth.
  private var deadlines = Heap<Entry>()
  /// Registered (suspended) sleepers, with their deadlines.
  private var sleepers: [WaiterID: Watcher<Duration>] = [:]
  private var nextSequence: UInt64 = 0
  /// Sleepers that were woken and whose `sleep` call has not returned yet.
  private var resumed: Set<WaiterID> = []
  /// Tests waiting until a woken sleeper's `sleep` has returned.
  private var returnWatchers = Watchers<WaiterID, Waiter>()
  /// Tests waiting until at least `target` sleepers are registered.
  private var countWatchers = Watchers<Int, Waiter>()
  /// Deadlines of scheduled work. Entries of cancelled work stay until they reach the top (or a
  /// compaction removes them): `work` is the truth.
  private var workDeadlines = Heap<Entry>()
  /// Scheduled work that has neither run nor been cancelled.
  private var work: [WaiterID: PendingWork] = [:]
  /// How many items of `work` each queue has.
  private var workCounts: [WaiterID: Int] = [:]

  /// A waiter with what it waits for.
  private struct Watcher<Condition> {
    let condition: Condition
    let waiter: Waiter
    /// For a sleeper: the name of its task, read when it fell asleep.
    var task: String? = nil
  }

  /// How many sleepers are suspended right now.
  var sleeperCount: Int { sleepers.count }

  /// How many woken sleepers have not yet returned from `sleep`.
  var resumedCount: Int { resumed.count }

  /// The deadlines of the registered sleepers, earliest first (ties in registration order).
  var pendingDeadlines: [Duration] {
    deadlines.unordered.filter { sleepers[$0.id] != nil }.sorted().map(\.deadline)
  }

  /// The registered sleepers, in the order they wake: deadline, and the name of their task.
  var pendingSleepers: [(deadline: Duration, task: String?)] {
    deadlines.unordered.sorted().compactMap { entry in
      sleepers[entry.id].map { (entry.deadline, $0.task) }
    }
  }

  /// The earliest deadline of a registered sleeper, dropping entries of cancelled ones on the way.
  mutating func nextDeadline() -> Duration? {
    while let top = deadlines.min {
      if sleepers[top.id] != nil { return top.deadline }
      deadlines.popMin()
    }
    return nil
  }

  /// How many scheduled work items of `queue` have neither run nor been cancelled.
  func pendingWorkCount(of queue: WaiterID) -> Int { workCounts[queue] ?? 0 }

  /// The scheduled work of `queue`, in the order it will run.
  func pendingWork(of queue: WaiterID) -> [PendingWork] {
    workDeadlines.unordered.sorted().compactMap { entry in
      work[entry.id].flatMap { $0.queue == queue ? $0 : nil }
    }
  }

  /// Schedules work on `queue` for `deadline`; a deadline that has passed (or `nil`) means now.
  /// Work due at the same time runs in the order it was scheduled.
  mutating func schedule(
    _ id: WaiterID, on queue: WaiterID, at deadline: Duration?, site: CallSite,
    _ body: @escaping @Sendable () -> Void
  ) {
    let due = max(deadline ?? now, now)
    work[id] = PendingWork(id: id, queue: queue, deadline: due, site: site, body: body)
    workCounts[queue, default: 0] += 1
    workDeadlines.insert(Entry(deadline: due, sequence: nextSequence, id: id))
    nextSequence += 1
  }

  /// Removes scheduled work that has not run yet: true when it was still pending.
  mutating func cancelWork(_ id: WaiterID) -> Bool {
    removeWork(id) != nil
  }

  /// Moves time to `target` without waking anybody; the caller then takes the due events one at a
  /// time with ``takeNextEvent(upTo:)``. Returns `now` when the target is in the past (a misuse;
  /// time does not move), nil otherwise.
  mutating func moveTime(to target: Duration) -> Duration? {
    guard target >= now else { return now }
    now = target
    return nil
  }

  /// Moves time forward by `duration`, like ``moveTime(to:)``: returns `now` when the duration is
  /// negative (a misuse; time does not move), nil otherwise.
  mutating func moveTime(by duration: Duration) -> Duration? {
    guard duration >= .zero else { return now }
    now += duration
    return nil
  }

  /// The earliest deadline of a sleeper or of scheduled work, or nil when there is neither.
  mutating func nextEventDeadline() -> Duration? {
    switch (nextDeadline(), nextWorkEntry()?.deadline) {
    case (let sleeper?, let item?): min(sleeper, item)
    case (let sleeper, let item): sleeper ?? item
    }
  }

  /// Takes the earliest event due by `upTo` (deadline order; ties in the order sleepers started
  /// sleeping and work was scheduled), or nil when nothing is due. A sleeper is moved to the
  /// resumed sleepers; a work item is removed.
  mutating func takeNextEvent(upTo target: Duration) -> Event? {
    _ = nextDeadline()
    let sleeper = deadlines.min.flatMap { $0.deadline <= target ? $0 : nil }
    let item = nextWorkEntry().flatMap { $0.deadline <= target ? $0 : nil }
    if let sleeper, item.map({ sleeper < $0 }) ?? true {
      deadlines.popMin()
      let removed = sleepers.removeValue(forKey: sleeper.id)!
      resumed.insert(sleeper.id)
      return .sleeper(id: sleeper.id, waiter: removed.waiter)
    }
    guard let item else { return nil }
    workDeadlines.popMin()
    return .work(removeWork(item.id)!)
  }

  /// Takes the earliest work of `queue` due by `upTo`, leaving sleepers and other queues' work
  /// alone; nil when none is due.
  mutating func takeNextWork(of queue: WaiterID, upTo target: Duration) -> PendingWork? {
    guard let top = nextWorkEntry(), top.deadline <= target else { return nil }
    if work[top.id]?.queue == queue {
      workDeadlines.popMin()
      return removeWork(top.id)
    }
    // Another queue's work comes first: find this queue's earliest due work (its heap entry
    // becomes stale and is dropped later).
    guard workCounts[queue] != nil else { return nil }
    let candidate = workDeadlines.unordered.filter {
      $0.deadline <= target && work[$0.id]?.queue == queue
    }.min()
    return candidate.flatMap { removeWork($0.id) }
  }

  private mutating func removeWork(_ id: WaiterID) -> PendingWork? {
    guard let removed = work.removeValue(forKey: id) else { return nil }
    workCounts[removed.queue, default: 1] -= 1
    if workCounts[removed.queue] == 0 { workCounts[removed.queue] = nil }
    if workDeadlines.count > 64, workDeadlines.count > 2 * work.count {
      workDeadlines = Heap(workDeadlines.unordered.filter { work[$0.id] != nil })
    }
    return removed
  }

  /// The heap entry of the earliest pending work, dropping entries of cancelled work on the way.
  private mutating func nextWorkEntry() -> Entry? {
    while let top = workDeadlines.min {
      if work[top.id] != nil { return top }
      workDeadlines.popMin()
    }
    return nil
  }

  /// A sleeper arrives with an absolute deadline. `isCancelled` is whether its task is cancelled,
  /// read under the same lock, so that a cancellation handler that ran before registration (and
  /// found nothing to remove) is never missed.
  mutating func sleep(
    _ id: WaiterID, until deadline: Duration, _ waiter: Waiter, isCancelled: Bool,
    task: String? = nil
  ) -> SleepDecision {
    if isCancelled { return .cancelled }
    if deadline <= now { return .elapsed }
    sleepers[id] = Watcher(condition: deadline, waiter: waiter, task: task)
    deadlines.insert(Entry(deadline: deadline, sequence: nextSequence, id: id))
    nextSequence += 1
    return .suspended(satisfied: takeSatisfiedCountWatchers())
  }

  /// Removes a sleeper whose task was cancelled, if it is still registered. The caller resumes the
  /// returned waiter with `CancellationError`.
  mutating func cancel(_ id: WaiterID) -> Waiter? {
    guard let sleeper = sleepers.removeValue(forKey: id) else { return nil }
    compactIfMostlyStale()
    return sleeper.waiter
  }

  /// Moves time to `target` and takes every sleeper due by then, in deadline order (ties in
  /// registration order). Moving to `now` is allowed and wakes nobody.
  mutating func advance(to target: Duration) -> AdvanceDecision {
    guard target >= now else { return .backwards(now: now) }
    now = target
    var woken: [(id: WaiterID, waiter: Waiter)] = []
    while let top = deadlines.min, top.deadline <= target {
      deadlines.popMin()
      guard let sleeper = sleepers.removeValue(forKey: top.id) else { continue }
      woken.append((top.id, sleeper.waiter))
      resumed.insert(top.id)
    }
    return .advanced(woken: woken)
  }

  /// Moves time to the earliest deadline and takes the sleepers due then; `nil` when no sleeper
  /// is left. One step of ``TestClock/run(timeout:fileID:filePath:line:column:)``.
  mutating func advanceToNextDeadline() -> [(id: WaiterID, waiter: Waiter)]? {
    guard let next = nextDeadline(), case .advanced(let woken) = advance(to: next) else { return nil }
    return woken
  }

  /// A woken sleeper's `sleep` call returned. Returns the watchers waiting for that.
  mutating func returned(_ id: WaiterID) -> [Waiter] {
    guard resumed.remove(id) != nil else { return [] }
    return returnWatchers.takeReached { $0 == id }
  }

  /// A test waits until the woken `sleeper` has returned from `sleep`: false when it already has.
  mutating func watchReturn(_ id: WaiterID, of sleeper: WaiterID, _ waiter: Waiter) -> Bool {
    let resumed = self.resumed
    // Reached once the sleeper is no longer among the resumed ones that have yet to return.
    return returnWatchers.watch(id, target: sleeper, waiter) { !resumed.contains($0) }
  }

  mutating func departReturnWatcher(_ id: WaiterID) -> Waiter? {
    returnWatchers.remove(id)
  }

  /// A test waits until at least `target` sleepers are registered: false when there already are.
  mutating func watchSleepers(_ id: WaiterID, target: Int, _ waiter: Waiter) -> Bool {
    let count = sleepers.count
    return countWatchers.watch(id, target: target, waiter) { count >= $0 }
  }

  mutating func departCountWatcher(_ id: WaiterID) -> Waiter? {
    countWatchers.remove(id)
  }

  private mutating func takeSatisfiedCountWatchers() -> [Waiter] {
    let count = sleepers.count
    return countWatchers.takeReached { count >= $0 }
  }

  /// Rebuilds the heap from the live sleepers when cancelled entries outnumber them, so that
  /// memory stays proportional to the sleepers and every operation stays O(log n) amortized.
  private mutating func compactIfMostlyStale() {
    guard deadlines.count > 64, deadlines.count > 2 * sleepers.count else { return }
    deadlines = Heap(deadlines.unordered.filter { sleepers[$0.id] != nil })
  }
}
