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
  private var returnWatchers: [WaiterID: Watcher<WaiterID>] = [:]
  /// Tests waiting until at least `target` sleepers are registered.
  private var countWatchers: [WaiterID: Watcher<Int>] = [:]

  /// A waiter with what it waits for.
  private struct Watcher<Condition> {
    let condition: Condition
    let waiter: Waiter
  }

  /// How many sleepers are suspended right now.
  var sleeperCount: Int { sleepers.count }

  /// How many woken sleepers have not yet returned from `sleep`.
  var resumedCount: Int { resumed.count }

  /// The deadlines of the registered sleepers, earliest first (ties in registration order).
  var pendingDeadlines: [Duration] {
    deadlines.unordered.filter { sleepers[$0.id] != nil }.sorted().map(\.deadline)
  }

  /// The earliest deadline of a registered sleeper, dropping entries of cancelled ones on the way.
  mutating func nextDeadline() -> Duration? {
    while let top = deadlines.min {
      if sleepers[top.id] != nil { return top.deadline }
      deadlines.popMin()
    }
    return nil
  }

  /// A sleeper arrives with an absolute deadline. `isCancelled` is whether its task is cancelled,
  /// read under the same lock, so that a cancellation handler that ran before registration (and
  /// found nothing to remove) is never missed.
  mutating func sleep(
    _ id: WaiterID, until deadline: Duration, _ waiter: Waiter, isCancelled: Bool
  ) -> SleepDecision {
    if isCancelled { return .cancelled }
    if deadline <= now { return .elapsed }
    sleepers[id] = Watcher(condition: deadline, waiter: waiter)
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
    guard !returnWatchers.isEmpty else { return [] }
    let due = returnWatchers.filter { $0.value.condition == id }.sorted { $0.key < $1.key }
    for (watcher, _) in due { returnWatchers[watcher] = nil }
    return due.map(\.value.waiter)
  }

  /// A test waits until the woken `sleeper` has returned from `sleep`: false when it already has.
  mutating func watchReturn(_ id: WaiterID, of sleeper: WaiterID, _ waiter: Waiter) -> Bool {
    guard resumed.contains(sleeper) else { return false }
    returnWatchers[id] = Watcher(condition: sleeper, waiter: waiter)
    return true
  }

  mutating func departReturnWatcher(_ id: WaiterID) -> Waiter? {
    returnWatchers.removeValue(forKey: id)?.waiter
  }

  /// A test waits until at least `target` sleepers are registered: false when there already are.
  mutating func watchSleepers(_ id: WaiterID, target: Int, _ waiter: Waiter) -> Bool {
    guard sleepers.count < target else { return false }
    countWatchers[id] = Watcher(condition: target, waiter: waiter)
    return true
  }

  mutating func departCountWatcher(_ id: WaiterID) -> Waiter? {
    countWatchers.removeValue(forKey: id)?.waiter
  }

  private mutating func takeSatisfiedCountWatchers() -> [Waiter] {
    guard !countWatchers.isEmpty else { return [] }
    let due = countWatchers.filter { $0.value.condition <= sleepers.count }.sorted { $0.key < $1.key }
    for (id, _) in due { countWatchers[id] = nil }
    return due.map(\.value.waiter)
  }

  /// Rebuilds the heap from the live sleepers when cancelled entries outnumber them, so that
  /// memory stays proportional to the sleepers and every operation stays O(log n) amortized.
  private mutating func compactIfMostlyStale() {
    guard deadlines.count > 64, deadlines.count > 2 * sleepers.count else { return }
    deadlines = Heap(deadlines.unordered.filter { sleepers[$0.id] != nil })
  }
}
