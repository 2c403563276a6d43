/// The timers of a run that are not jobs, in its virtual time: the failure bounds of Lockstep
/// waits, and the wake-ups of a `TestClock(advancesAutomatically: true)`. They are neither steps
/// of the trace nor choices of an exploration.
///
/// The firing rule, asked only when no job is ready: the earliest live timer fires when it is due
/// no later than the next sleeper of the run (or there is none), and
/// - it is a wake-up (it counts as progress, like a sleeper), or
/// - something else could still make progress after it fires (a sleeper, another wake-up), or
/// - the run has already reported a deadlock (from then on, waits end with their timeout errors).
///
/// Otherwise only failure bounds are pending while nothing can make progress: that is a deadlock,
/// and the run reports it before any bound fires, so the report says what each task waits for.
struct RunTimers {
  struct Key: Comparable {
    let deadline: Duration
    let id: UInt64
    /// Whether firing it wakes something (it counts as a sleeper), rather than failing a wait.
    let wakes: Bool
    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id) }
  }

  /// A live timer.
  private struct Timer {
    let wakes: Bool
    let action: @Sendable () -> Void
  }

  /// Every timer started; removed ones stay until they reach the top (`timers` is the truth).
  private var heap = Heap<Key>()
  private var timers: [UInt64: Timer] = [:]
  /// How many live timers are wake-ups.
  private var wakeUps = 0
  private var sequence: UInt64 = 0
  /// Whether the run has reported a deadlock: failure bounds may fire from then on.
  private(set) var deadlockReported = false

  /// How many timers are live.
  var count: Int { timers.count }

  /// Starts a timer that calls `action` at `deadline`; returns its id.
  mutating func start(at deadline: Duration, wakes: Bool, _ action: @escaping @Sendable () -> Void)
    -> UInt64
  {
    sequence += 1
    heap.insert(Key(deadline: deadline, id: sequence, wakes: wakes))
    // Room for a typical run's pending bounds at once, rather than a rehash at every doubling.
    if sequence == 1 { timers.reserveCapacity(8) }
    timers[sequence] = Timer(wakes: wakes, action: action)
    if wakes { wakeUps += 1 }
    return sequence
  }

  /// Removes a timer, returning its action if it had not fired yet.
  mutating func remove(_ id: UInt64) -> (@Sendable () -> Void)? {
    guard let timer = timers.removeValue(forKey: id) else { return nil }
    if timer.wakes { wakeUps -= 1 }
    return timer.action
  }

  /// The timer that fires now, by the firing rule, removed; `nextSleeper` is the deadline of the
  /// run's earliest sleeper, if any.
  mutating func takeDue(nextSleeper: Duration?) -> (deadline: Duration, action: @Sendable () -> Void)? {
    while let timer = heap.min, timers[timer.id] == nil { _ = heap.popMin() }
    guard let timer = heap.min, nextSleeper.map({ timer.deadline < $0 }) ?? true else { return nil }
    let otherWakeUps = wakeUps - (timer.wakes ? 1 : 0)
    let progressLater = nextSleeper != nil || otherWakeUps > 0
    guard timer.wakes || progressLater || deadlockReported else { return nil }
    _ = heap.popMin()
    return (timer.deadline, remove(timer.id)!)
  }

  mutating func markDeadlockReported() { deadlockReported = true }

  /// Ends the timers' life in virtual time: returns every live timer with its time left after
  /// `now`, earliest first. Their actions stay, for ``remove(_:)`` to take when a real-time bound
  /// with that time left expires.
  mutating func moveToRealTime(now: Duration) -> [(id: UInt64, remaining: Duration)] {
    var pending: [(UInt64, Duration)] = []
    while let timer = heap.popMin() {
      if timers[timer.id] != nil { pending.append((timer.id, timer.deadline - now)) }
    }
    return pending
  }
}
