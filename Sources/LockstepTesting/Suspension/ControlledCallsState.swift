/// How a controlled call ended.
enum CallEnding: Equatable, Sendable, CustomStringConvertible {
  /// The test completed it with a value.
  case succeeded
  /// The test failed it with an error, one by one or with `failAll`.
  case failed
  /// Its caller's task was cancelled and the instance ends calls on cancellation.
  case cancelled
  /// The teardown check found it pending and ended it.
  case tornDown

  var description: String {
    switch self {
    case .succeeded: "succeeded"
    case .failed: "failed"
    case .cancelled: "cancelled by its caller"
    case .tornDown: "ended by the teardown check"
    }
  }
}

/// The pure state machine behind ``ControlledCalls``: which calls arrived, with which argument,
/// which are still pending, and who waits for arrivals. It decides; the shell resumes the
/// continuations it returns after unlocking.
///
/// Generic over the waiter tokens so it can be tested without threads or continuations. A call
/// registers (gets its id and records its argument) before its continuation exists, so the test
/// may complete or cancel it in between: the outcome is then kept until the continuation is
/// attached, and delivered at once.
struct ControlledCallsState<Argument, Output, CallWaiter, Watcher> {
  typealias Outcome = Result<Output, any Error>

  struct Call {
    let id: Int
    let argument: Argument
    /// The continuation, once the caller has suspended.
    var waiter: CallWaiter?
    /// How the call ended; nil while pending.
    var ending: CallEnding?
    /// An outcome decided before the continuation was attached, to deliver when it is.
    var undelivered: Outcome?
  }

  /// Every call in arrival order; call `id` is at index `id - 1`.
  private(set) var calls: [Call] = []
  /// How many calls are pending.
  private(set) var pendingCount = 0
  /// Every call before this index has ended: scans for pending calls start here.
  private var firstMaybePending = 0
  /// Once set (by `failAll` or the teardown check), every later call ends at once with the error
  /// it makes for the call.
  private var endingForLaterCalls: (ending: CallEnding, error: (Call) -> any Error)?
  /// Tests waiting until a number of calls have arrived.
  private var watchers = Watchers<Int, Watcher>()

  var callCount: Int { calls.count }
  var pendingIDs: [Int] {
    calls[firstMaybePending...].filter { $0.ending == nil }.map(\.id)
  }
  var arguments: [Argument] { calls.map(\.argument) }

  func argument(of id: Int) -> Argument? {
    calls.indices.contains(id - 1) ? calls[id - 1].argument : nil
  }

  func ending(of id: Int) -> CallEnding? {
    calls.indices.contains(id - 1) ? calls[id - 1].ending : nil
  }

  // MARK: The fake's side

  /// A call arrives. Returns its id, the watchers it satisfied, and an outcome to return at once
  /// when every later call is already ended (`failAll`, teardown).
  mutating func register(_ argument: Argument) -> (id: Int, satisfied: [Watcher], immediate: Outcome?) {
    let id = calls.count + 1
    var call = Call(id: id, argument: argument)
    var immediate: Outcome?
    if let later = endingForLaterCalls {
      call.ending = later.ending
      immediate = .failure(later.error(call))
    } else {
      pendingCount += 1
    }
    calls.append(call)
    return (id, takeSatisfiedWatchers(), immediate)
  }

  /// The registered call's continuation is ready. Returns the outcome to resume it with now, or
  /// nil when it was stored to wait for the test.
  mutating func attach(_ id: Int, _ waiter: CallWaiter) -> Outcome? {
    let index = id - 1
    if calls[index].ending != nil {
      defer { calls[index].undelivered = nil }
      return calls[index].undelivered
    }
    calls[index].waiter = waiter
    return nil
  }

  /// The caller's task was cancelled (for instances that end calls on cancellation). Returns the
  /// continuation to resume with `CancellationError`, if it was stored.
  mutating func cancel(_ id: Int) -> CallWaiter? {
    end(id, as: .cancelled, with: .failure(CancellationError()))
  }

  // MARK: The test's side

  /// What completing a call by id found.
  enum Completion: Equatable {
    /// The call was pending and has ended (its continuation, if attached, is returned by
    /// ``complete(_:as:with:)``).
    case completed
    /// No call with that id has arrived.
    case unknown
    /// The call had already ended this way.
    case alreadyEnded(CallEnding)
  }

  /// The test completes call `id` with `outcome`. Returns what it found and the continuation to
  /// resume, if there is one to resume now. A call ended by its caller's cancellation is reported
  /// as `.alreadyEnded(.cancelled)`, which the shell accepts silently: the late result is dropped.
  mutating func complete(
    _ id: Int, as ending: CallEnding, with outcome: Outcome
  ) -> (found: Completion, resume: CallWaiter?) {
    guard calls.indices.contains(id - 1) else { return (.unknown, nil) }
    if let previous = calls[id - 1].ending { return (.alreadyEnded(previous), nil) }
    return (.completed, end(id, as: ending, with: outcome))
  }

  /// The oldest pending call's id, if any.
  mutating func oldestPendingID() -> Int? {
    while firstMaybePending < calls.count, calls[firstMaybePending].ending != nil {
      firstMaybePending += 1
    }
    return firstMaybePending < calls.count ? calls[firstMaybePending].id : nil
  }

  /// Ends every pending call, and every later call as it arrives, with `error`. Returns the
  /// continuations to resume, oldest first. A second call replaces the error for later calls.
  mutating func endAll(as ending: CallEnding, with error: any Error) -> [CallWaiter] {
    endingForLaterCalls = (ending, { _ in error })
    var resumed: [CallWaiter] = []
    for id in pendingIDs {
      if let waiter = end(id, as: ending, with: .failure(error)) { resumed.append(waiter) }
    }
    return resumed
  }

  /// The teardown check: ends every pending call, and every later call as it arrives, with the
  /// error `errorFor` makes for it. Returns the calls it found pending, oldest first, each with
  /// its continuation to resume (nil when the caller has not suspended yet: it gets the error
  /// when it does).
  mutating func tearDown(
    errorFor: @escaping (Call) -> any Error
  ) -> [(call: Call, resume: (waiter: CallWaiter, error: any Error)?)] {
    let found = pendingIDs.map { calls[$0 - 1] }
    endingForLaterCalls = (.tornDown, errorFor)
    return found.map { call in
      let error = errorFor(call)
      let waiter = end(call.id, as: .tornDown, with: .failure(error))
      return (call, waiter.map { ($0, error) })
    }
  }

  /// A test arrives to wait until `target` calls have arrived: false when they already have.
  mutating func watch(_ id: WaiterID, target: Int, _ watcher: Watcher) -> Bool {
    let made = calls.count
    return watchers.watch(id, target: target, watcher) { made >= $0 }
  }

  mutating func departWatcher(_ id: WaiterID) -> Watcher? {
    watchers.remove(id)
  }

  // MARK: Helpers

  /// Ends a pending call. Returns its continuation when attached; otherwise keeps the outcome for
  /// `attach`.
  private mutating func end(_ id: Int, as ending: CallEnding, with outcome: Outcome) -> CallWaiter? {
    let index = id - 1
    guard calls[index].ending == nil else { return nil }
    pendingCount -= 1
    calls[index].ending = ending
    if let waiter = calls[index].waiter {
      calls[index].waiter = nil
      return waiter
    }
    calls[index].undelivered = outcome
    return nil
  }

  private mutating func takeSatisfiedWatchers() -> [Watcher] {
    let made = calls.count
    return watchers.takeReached { made >= $0 }
  }
}
