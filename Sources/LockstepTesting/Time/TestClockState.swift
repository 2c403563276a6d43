/// The pure state machine behind ``TestClock``: the current time, the suspended sleepers ordered by
/// deadline, the advances in progress, and the tests waiting for sleepers. It decides; the clock
/// applies the decisions (resumes continuations, reports misuse) outside its lock.
///
/// Generic over the waiter token so it can be tested without threads or continuations.
///
/// A sleeper goes through these phases, each a decision of this type:
/// 1. `reserve` and `attach` (or `sleep`, both at once) — given a ticket before its task suspends,
///    then registered (suspended), or told to return at once (deadline not in the future) or to
///    throw (its task was already cancelled: never counted as a sleeper).
/// 2. `cancel` — removed before it was woken; the caller resumes it with `CancellationError`.
///    Cancelling a sleeper that is not registered (not yet, or not any more) does nothing.
/// 3. `takeNextEvent` or `advance` — woken: removed from the sleepers, taken in deadline order
///    (ties in registration order) and remembered as *resumed* until…
/// 4. `returned` — its `sleep` call has returned in its own task. When an advance woke it and
///    waits for it, this is also where the advance goes on: the returning sleeper hands on to the
///    next sleeper due (a *chain*: one task hop per sleeper instead of two), or back to the
///    advance when what comes next is work, nothing, or a pause.
///
/// Sleepers live in reusable slots and the heap holds slot numbers, so no per-sleeper path hashes
/// or allocates: every one is O(1) or O(log n) in the number of sleepers.
///
/// The clock's timeline is shared with every `TestQueue` created on it: their scheduled work
/// lives here too, in a second heap ordered like the sleepers (deadline, then one sequence
/// number shared with the sleepers), so that ``takeNextEvent(for:chained:)`` can hand out sleepers and
/// work items interleaved in deadline order.
struct TestClockState<Waiter> {
  /// A sleeper, from the moment it reserves its place until its `sleep` returns: its slot, and
  /// its sequence number, which tells it from later sleepers in the same slot.
  struct SleeperTicket: Hashable, Sendable {
    let slot: Int
    let sequence: UInt64
  }

  /// What happened to a sleeper that arrived.
  enum SleepDecision {
    /// Stored: the sleeper suspends. `satisfied` are the sleeper-count watchers to resume.
    case suspended(SleeperTicket, satisfied: [Waiter])
    /// The deadline is not in the future: return without suspending.
    case elapsed
    /// The sleeper's task was already cancelled: throw `CancellationError`, never counted.
    case cancelled
  }

  /// What an advance decided.
  enum AdvanceDecision {
    /// Time moved to the target; these sleepers are due, in the order to resume them.
    case advanced(woken: [(ticket: SleeperTicket, waiter: Waiter)])
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
    case sleeper(SleeperTicket, waiter: Waiter)
    /// A work item is due: run it (it was removed from the pending work).
    case work(PendingWork)
  }

  /// What a woken sleeper that returned from `sleep` hands on to.
  enum Handoff {
    /// Nobody: no advance waits for this sleeper.
    case none
    /// The next sleeper of the chain, due now: resume it (it was moved to the resumed sleepers).
    case sleeper(Waiter)
    /// The advance that waits: resume it; it goes on by itself.
    case advance(Waiter)
  }

  /// What a failure bound of a waiting advance found when it expired.
  enum StallCheck {
    /// Sleepers returned since the bound was started: start another, counting from `returns`.
    case progressed(returns: Int)
    /// No woken sleeper returned for the whole bound: the advance stops waiting. Resume it.
    case stalled(Waiter)
    /// The advance no longer waits.
    case over
  }

  /// How much of a chain runs without the advance: after this many sleepers the chain hands
  /// back, so that `run()` checks its real-time limit now and then.
  static var chainLength: Int { 256 }

  /// A heap entry of a sleeper: its slot.
  private typealias SleeperEntry = TimelineEntry<Int>
  /// A heap entry of scheduled work: its id.
  private typealias WorkEntry = TimelineEntry<WaiterID>

  /// Where a sleeper is; the phases of the type's documentation.
  private enum Phase: Equatable {
    case free
    /// It has a ticket and has not suspended yet; `cancelled` when its task was cancelled since.
    case reserved(cancelled: Bool)
    case asleep
    /// Woken, its `sleep` not returned yet; `advance` is the chained advance that waits for it
    /// (0: none).
    case resumed(advance: UInt64)
  }

  /// What a slot knows of its sleeper. Not generic, so that it is copied inline.
  private struct SleeperInfo {
    var sequence: UInt64 = 0
    var phase = Phase.free
    var deadline: Duration = .zero
    /// The name of its task, read when it fell asleep.
    var task: String? = nil
  }

  /// An advance in progress that may wait for the sleepers it wakes.
  private struct Advance {
    let id: UInt64
    /// How far it goes; nil for `run()`, which goes from deadline to deadline.
    let target: Duration?
    var sleepers = 0
    var work = 0
    /// Sleepers of its chain that returned: the progress its failure bound looks at.
    var returns = 0
    /// Sleepers woken by the chain since the advance last took over.
    var chainSteps = 0
    /// Whether a sleeper it woke has yet to return and hand on.
    var chaining = false
    /// The advance's task, suspended until the chain hands back.
    var waiter: Waiter? = nil
    /// The latest deadline of a sleeper its chain woke: where a `run()` is once they returned.
    var latestWoken: Duration = .zero
  }

  /// The current time, as an offset from the clock's zero.
  private(set) var now: Duration = .zero
  private var nextSequence: UInt64 = 1
  /// Deadlines of registered sleepers. Entries of cancelled sleepers stay until they reach the
  /// top (or a compaction removes them): the slot is the truth.
  private var deadlines = Heap<SleeperEntry>()
  private var sleeperInfo: [SleeperInfo] = []
  private var sleeperWaiters: [Waiter?] = []
  private var freeSleeperSlots: [Int] = []
  /// How many sleepers are suspended right now.
  private(set) var sleeperCount = 0
  /// How many woken sleepers have not yet returned from `sleep`.
  private(set) var resumedCount = 0
  /// Tests waiting until at least `target` sleepers are registered.
  private var countWatchers = Watchers<Int, Waiter>()
  /// The advances in progress: usually one.
  private var advances: [Advance] = []
  private var nextAdvance: UInt64 = 1
  /// Deadlines of scheduled work. Entries of cancelled work stay until they reach the top (or a
  /// compaction removes them): `work` is the truth.
  private var workDeadlines = Heap<WorkEntry>()
  /// Scheduled work that has neither run nor been cancelled.
  private var work: [WaiterID: PendingWork] = [:]
  /// How many items of `work` each queue has.
  private var workCounts: [WaiterID: Int] = [:]

  /// The deadlines of the registered sleepers, earliest first (ties in registration order).
  var pendingDeadlines: [Duration] {
    deadlines.unordered.filter(isLive).sorted().map(\.deadline)
  }

  /// The registered sleepers, in the order they wake: deadline, and the name of their task.
  var pendingSleepers: [(deadline: Duration, task: String?)] {
    deadlines.unordered.filter(isLive).sorted().map { ($0.deadline, sleeperInfo[$0.slot].task) }
  }

  private func isLive(_ entry: SleeperEntry) -> Bool {
    let info = sleeperInfo[entry.slot]
    return info.sequence == entry.sequence && info.phase == .asleep
  }

  /// The earliest deadline of a registered sleeper, dropping entries of cancelled ones on the way.
  mutating func nextDeadline() -> Duration? {
    liveTop()?.deadline
  }

  private mutating func liveTop() -> SleeperEntry? {
    while let top = deadlines.min {
      if isLive(top) { return top }
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
    workDeadlines.insert(WorkEntry(deadline: due, sequence: nextSequence, key: id))
    nextSequence += 1
  }

  /// Removes scheduled work that has not run yet: true when it was still pending.
  mutating func cancelWork(_ id: WaiterID) -> Bool {
    removeWork(id) != nil
  }

  /// Moves time to `target` without waking anybody; the caller then takes the due events one at a
  /// time with ``takeNextEvent(upTo:)`` or ``takeNextEvent(for:chained:)``. Returns `now` when the target is in the past (a misuse;
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
  /// resumed sleepers (no advance waits for it); a work item is removed.
  mutating func takeNextEvent(upTo target: Duration) -> Event? {
    takeEvent(upTo: target, chainedTo: 0)
  }

  private mutating func takeEvent(upTo target: Duration, chainedTo advance: UInt64) -> Event? {
    let sleeper = liveTop().flatMap { $0.deadline <= target ? $0 : nil }
    let item = nextWorkEntry().flatMap { $0.deadline <= target ? $0 : nil }
    if let sleeper, item.map({ Self.precedes(sleeper, $0) }) ?? true {
      deadlines.popMin()
      return .sleeper(ticket(sleeper), waiter: wake(sleeper.slot, chainedTo: advance))
    }
    guard let item else { return nil }
    workDeadlines.popMin()
    return .work(removeWork(item.id)!)
  }

  /// Whether the sleeper's entry comes before the work's on the shared timeline.
  private static func precedes(_ sleeper: SleeperEntry, _ item: WorkEntry) -> Bool {
    (sleeper.deadline._high, sleeper.deadline._low, sleeper.sequence)
      < (item.deadline._high, item.deadline._low, item.sequence)
  }

  private func ticket(_ entry: SleeperEntry) -> SleeperTicket {
    SleeperTicket(slot: entry.slot, sequence: entry.sequence)
  }

  /// Moves the sleeper in `slot`, whose heap entry was just popped, to the resumed sleepers.
  private mutating func wake(_ slot: Int, chainedTo advance: UInt64) -> Waiter {
    sleeperInfo[slot].phase = .resumed(advance: advance)
    sleeperCount -= 1
    resumedCount += 1
    return sleeperWaiters[slot].take()!
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
  private mutating func nextWorkEntry() -> WorkEntry? {
    while let top = workDeadlines.min {
      if work[top.id] != nil { return top }
      workDeadlines.popMin()
    }
    return nil
  }

  /// A sleeper arrives with an absolute deadline: ``reserve(until:)`` and
  /// ``attach(_:_:isCancelled:task:)`` at once.
  mutating func sleep(
    until deadline: Duration, _ waiter: Waiter, isCancelled: Bool, task: String? = nil
  ) -> SleepDecision {
    if isCancelled { return .cancelled }
    guard let ticket = reserve(until: deadline) else { return .elapsed }
    return attach(ticket, waiter, isCancelled: false, task: task)
  }

  /// A sleeper takes its place before its task suspends, so that a cancellation handler has a
  /// ticket to cancel; nil when the deadline is not in the future (return at once). Its place in
  /// the order of ties is taken now.
  mutating func reserve(until deadline: Duration) -> SleeperTicket? {
    guard deadline > now else { return nil }
    let slot: Int
    if let free = freeSleeperSlots.popLast() {
      slot = free
    } else {
      slot = sleeperInfo.count
      sleeperInfo.append(SleeperInfo())
      sleeperWaiters.append(nil)
    }
    sleeperInfo[slot] = SleeperInfo(
      sequence: nextSequence, phase: .reserved(cancelled: false), deadline: deadline)
    nextSequence += 1
    return SleeperTicket(slot: slot, sequence: sleeperInfo[slot].sequence)
  }

  /// The reserved sleeper suspends with `waiter`. `isCancelled` is whether its task is cancelled,
  /// read under the same lock, so that a cancellation is never missed; a deadline that time
  /// reached since the reservation returns at once.
  mutating func attach(
    _ ticket: SleeperTicket, _ waiter: Waiter, isCancelled: Bool, task: String? = nil
  ) -> SleepDecision {
    guard sleeperInfo[ticket.slot].sequence == ticket.sequence,
      case .reserved(let cancelled) = sleeperInfo[ticket.slot].phase
    else { return .cancelled }
    if cancelled || isCancelled {
      free(ticket.slot)
      return .cancelled
    }
    let deadline = sleeperInfo[ticket.slot].deadline
    if deadline <= now {
      free(ticket.slot)
      return .elapsed
    }
    sleeperInfo[ticket.slot].phase = .asleep
    sleeperInfo[ticket.slot].task = task
    sleeperWaiters[ticket.slot] = waiter
    sleeperCount += 1
    deadlines.insert(SleeperEntry(deadline: deadline, sequence: ticket.sequence, key: ticket.slot))
    return .suspended(ticket, satisfied: takeSatisfiedCountWatchers())
  }

  private mutating func free(_ slot: Int) {
    sleeperInfo[slot].phase = .free
    sleeperInfo[slot].task = nil
    sleeperWaiters[slot] = nil
    freeSleeperSlots.append(slot)
  }

  /// Removes a sleeper whose task was cancelled, if it is still registered, and returns it for the
  /// caller to resume with `CancellationError`. A sleeper that has not suspended yet is marked, so
  /// that it throws when it does; a woken one is left alone.
  mutating func cancel(_ ticket: SleeperTicket) -> Waiter? {
    guard sleeperInfo[ticket.slot].sequence == ticket.sequence else { return nil }
    switch sleeperInfo[ticket.slot].phase {
    case .reserved:
      sleeperInfo[ticket.slot].phase = .reserved(cancelled: true)
      return nil
    case .asleep:
      let waiter = sleeperWaiters[ticket.slot].take()
      free(ticket.slot)
      sleeperCount -= 1
      compactIfMostlyStale()
      return waiter
    case .free, .resumed:
      return nil
    }
  }

  /// Moves time to `target` and takes every sleeper due by then, in deadline order (ties in
  /// registration order). Moving to `now` is allowed and wakes nobody. No advance waits for them.
  mutating func advance(to target: Duration) -> AdvanceDecision {
    guard target >= now else { return .backwards(now: now) }
    now = target
    var woken: [(ticket: SleeperTicket, waiter: Waiter)] = []
    while let top = liveTop(), top.deadline <= target {
      deadlines.popMin()
      woken.append((ticket(top), wake(top.slot, chainedTo: 0)))
    }
    return .advanced(woken: woken)
  }

  /// Moves time to the earliest deadline and takes the sleepers due then; `nil` when no sleeper
  /// is left.
  mutating func advanceToNextDeadline() -> [(ticket: SleeperTicket, waiter: Waiter)]? {
    guard let next = nextDeadline(), case .advanced(let woken) = advance(to: next) else { return nil }
    return woken
  }

  // MARK: Advances that wait for the sleepers they wake

  /// Starts an advance to `target` (time already moved there), or with nil a `run()`, which goes
  /// from deadline to deadline. Returns its id.
  mutating func beginAdvance(to target: Duration?) -> UInt64 {
    let id = nextAdvance
    nextAdvance += 1
    advances.append(Advance(id: id, target: target))
    return id
  }

  /// The next event of advance `id`, or nil when it is done: the earliest event due by its
  /// target; for a `run()`, time first moves to the earliest deadline when nothing is due now.
  /// With `chained`, the advance waits for a sleeper it takes: the sleeper hands on when it
  /// returns (see ``returned(_:)``).
  mutating func takeNextEvent(for id: UInt64, chained: Bool) -> Event? {
    guard let index = advances.firstIndex(where: { $0.id == id }) else { return nil }
    let target: Duration
    if let fixed = advances[index].target {
      target = fixed
    } else {
      guard let next = nextEventDeadline() else { return nil }
      if next > now { now = next }
      target = now
    }
    let event = takeEvent(upTo: target, chainedTo: chained ? id : 0)
    switch event {
    case .sleeper:
      advances[index].sleepers += 1
      advances[index].chaining = chained
      advances[index].chainSteps = 0
    case .work:
      advances[index].work += 1
    case nil:
      break
    }
    return event
  }

  /// Advance `id` suspends until its chain hands back: stores `waiter` and returns true, or
  /// false when the chain has handed back already.
  mutating func waitForChain(_ id: UInt64, _ waiter: Waiter) -> Bool {
    guard let index = advances.firstIndex(where: { $0.id == id }), advances[index].chaining else {
      return false
    }
    advances[index].waiter = waiter
    return true
  }

  /// Advance `id` stops waiting (its task was cancelled): the sleeper it waits for will not hand
  /// on. Returns the advance's waiter, if it is suspended, for the caller to resume.
  mutating func stopChain(_ id: UInt64) -> Waiter? {
    guard let index = advances.firstIndex(where: { $0.id == id }) else { return nil }
    advances[index].chaining = false
    return advances[index].waiter.take()
  }

  /// The failure bound of advance `id`'s wait expired; `returns` is how many sleepers of its
  /// chain had returned when the bound started. No return since then means the sleeper it waits
  /// for has been running for the whole bound without returning from `sleep`: the advance stops
  /// waiting.
  mutating func checkStall(_ id: UInt64, returns: Int) -> StallCheck {
    guard let index = advances.firstIndex(where: { $0.id == id }), advances[index].chaining else {
      return .over
    }
    if advances[index].returns != returns { return .progressed(returns: advances[index].returns) }
    advances[index].chaining = false
    return advances[index].waiter.take().map(StallCheck.stalled) ?? .over
  }

  /// How many sleepers advance `id` has woken so far.
  func sleepersWoken(by id: UInt64) -> Int {
    advances.first { $0.id == id }?.sleepers ?? 0
  }

  /// How many sleepers of advance `id`'s chain have returned so far.
  func chainReturns(of id: UInt64) -> Int {
    advances.first { $0.id == id }?.returns ?? 0
  }

  /// Ends advance `id`: how many sleepers it woke and work items it ran.
  mutating func endAdvance(_ id: UInt64) -> (sleepers: Int, work: Int) {
    guard let index = advances.firstIndex(where: { $0.id == id }) else { return (0, 0) }
    let advance = advances.remove(at: index)
    // A chain that did not hand back (a late sleeper, a cancelled advance) leaves time where its
    // woken sleepers are.
    if advance.latestWoken > now { now = advance.latestWoken }
    return (advance.sleepers, advance.work)
  }

  /// A woken sleeper's `sleep` call returned. When an advance waits for it, the advance goes on
  /// here: with the next sleeper, if that is what comes next by the advance's target (for a
  /// `run()`, at the earliest deadline, time moving there first), or else with the advance itself.
  mutating func returned(_ ticket: SleeperTicket) -> Handoff {
    guard sleeperInfo[ticket.slot].sequence == ticket.sequence,
      case .resumed(let id) = sleeperInfo[ticket.slot].phase
    else { return .none }
    // A sleeper a `run()` chain woke at a later deadline moves time there as it returns: after
    // the sleeper before it has handed on, before this one's next statement reads the time.
    if sleeperInfo[ticket.slot].deadline > now { now = sleeperInfo[ticket.slot].deadline }
    free(ticket.slot)
    resumedCount -= 1
    guard id != 0, let index = advances.firstIndex(where: { $0.id == id }), advances[index].chaining
    else { return .none }
    advances[index].returns += 1
    if advances[index].chainSteps < Self.chainLength, let next = takeChainedSleeper(index) {
      return .sleeper(next)
    }
    advances[index].chaining = false
    return advances[index].waiter.take().map(Handoff.advance) ?? .none
  }

  /// The next sleeper of the advance at `index`, if a sleeper is what comes next and is due.
  private mutating func takeChainedSleeper(_ index: Int) -> Waiter? {
    guard let top = liveTop() else { return nil }
    if let target = advances[index].target, top.deadline > target { return nil }
    // Due work that comes first runs on the advance's task: hand back.
    if let item = nextWorkEntry(), !Self.precedes(top, item) { return nil }
    // run(): the next step, to the earliest deadline. Time moves there when that sleeper returns
    // (see `returned(_:)`), not now: the sleeper handing on may not have read the time yet.
    advances[index].latestWoken = max(advances[index].latestWoken, top.deadline)
    deadlines.popMin()
    advances[index].sleepers += 1
    advances[index].chainSteps += 1
    return wake(top.slot, chainedTo: advances[index].id)
  }

  /// A test waits until at least `target` sleepers are registered: false when there already are.
  mutating func watchSleepers(_ id: WaiterID, target: Int, _ waiter: Waiter) -> Bool {
    let count = sleeperCount
    return countWatchers.watch(id, target: target, waiter) { count >= $0 }
  }

  mutating func departCountWatcher(_ id: WaiterID) -> Waiter? {
    countWatchers.remove(id)
  }

  private mutating func takeSatisfiedCountWatchers() -> [Waiter] {
    let count = sleeperCount
    return countWatchers.takeReached { count >= $0 }
  }

  /// Rebuilds the heap from the live sleepers when cancelled entries outnumber them, so that
  /// memory stays proportional to the sleepers and every operation stays O(log n) amortized.
  private mutating func compactIfMostlyStale() {
    guard deadlines.count > 64, deadlines.count > 2 * sleeperCount else { return }
    deadlines = Heap(deadlines.unordered.filter(isLive))
  }
}

/// A heap entry of a ``TestClock``'s timeline — a sleeper's slot or a work item's id — ordered by
/// deadline, then by registration.
private struct TimelineEntry<Key: Equatable>: Comparable {
  let deadline: Duration
  let sequence: UInt64
  let key: Key

  static func < (lhs: Self, rhs: Self) -> Bool {
    // `Duration`'s own `<` is not inlinable; its two words compare the same way.
    (lhs.deadline._high, lhs.deadline._low, lhs.sequence)
      < (rhs.deadline._high, rhs.deadline._low, rhs.sequence)
  }
}

extension TimelineEntry where Key == Int {
  /// The sleeper's slot.
  var slot: Int { key }
}

extension TimelineEntry where Key == WaiterID {
  /// The work item's id.
  var id: WaiterID { key }
}
