import Dispatch
import Lockstep

/// Lets one exploration proceed at a time in the process (the crash report keeps one
/// exploration's schedule); the runs of other tests go on beside it. First come, first served. An
/// exploration that waited long says so (``RunLockWait``), and a test cancelled while its
/// exploration waits (its time limit, for example) stops waiting and fails with what it waited for
/// (``RunLockWaitCancelled``; checked by `RunLockWaitTests`).
///
/// Every waiter — an exploration, an exploration taking the lock back behind the ones it let go
/// first, a waiter cancelled before, during or after its wait — gets the lock or stops waiting:
/// `RunLockInterleavingTests` checks it under random timings, with every kind at once.
final class RunSerializer: Sendable {
  static let shared = RunSerializer()

  /// The run holding the lock: where it was started, and since when.
  struct Holder: Sendable {
    let site: CallSite
    let since: ContinuousClock.Instant
  }

  private struct Waiter {
    let id: UInt64
    let site: CallSite
    /// Resumes the waiter: `true` when the lock passed to it, `false` when it was cancelled.
    let resume: @Sendable (Bool) -> Void
  }

  private struct State {
    var holder: Holder?
    var waiters: [Waiter] = []
    var nextID: UInt64 = 0
    /// Waiters cancelled before they were queued.
    var cancelled: Set<UInt64> = []

    /// Takes the lock for a run started at `site` if it is free.
    mutating func takeIfFree(for site: CallSite) -> Bool {
      if holder != nil { return false }
      holder = Holder(site: site, since: RealTime.now)
      return true
    }
  }
  private let state = Locked(State())

  /// Takes the lock for a run started at `site`; returns how long that took. Throws when the
  /// calling task is cancelled while it waits.
  nonisolated(nonsending) func acquire(for site: CallSite) async throws(RunLockWaitCancelled)
    -> RunLockWait
  {
    // A free lock is taken without a continuation (a free lock has nobody queued: `release()`
    // hands it straight to the next waiter).
    if state.withLock({ $0.takeIfFree(for: site) }) { return RunLockWait(waited: .zero, runsAhead: 0) }
    let start = RealTime.now
    let (id, ahead, holder) = state.withLock { state in
      state.nextID += 1
      return (state.nextID, state.waiters.count + 1, state.holder)
    }
    let granted = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let now: Bool? = state.withLock { state in
          if state.cancelled.remove(id) != nil { return false }
          if state.takeIfFree(for: site) { return true }
          state.waiters.append(Waiter(id: id, site: site) { continuation.resume(returning: $0) })
          return nil
        }
        if let now { continuation.resume(returning: now) }
      }
    } onCancel: {
      let waiter = state.withLock { state -> Waiter? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.waiters.remove(at: index)
      }
      waiter?.resume(false)
    }
    let wait = RunLockWait(waited: start.duration(to: RealTime.now), runsAhead: ahead)
    guard granted else {
      throw RunLockWaitCancelled(site: site, wait: wait, holder: holder)
    }
    return wait
  }

  /// How many runs wait for the lock.
  var waitingRuns: Int { state.withLock { $0.waiters.count } }

  /// Where the runs waiting for the lock were started, first in line first.
  var waitingSites: [CallSite] { state.withLock { $0.waiters.map(\.site) } }

  /// Whether runs wait for the lock and its holder has held it for `slice` or more (or for the
  /// shorter slice a test set, ``withLockSlice(_:_:)``).
  func othersWait(after slice: Duration) -> Bool {
    let slice = sliceOverride.withLock { $0.map { min($0, slice) } } ?? slice
    return state.withLock { state in
      guard !state.waiters.isEmpty, let holder = state.holder else { return false }
      return holder.since.duration(to: RealTime.now) >= slice
    }
  }

  /// The slice a test set, for as long as its `withLockSlice` call runs.
  private let sliceOverride = Locked<Duration?>(nil)

  /// Runs `body` with explorations letting waiting runs go first after `slice` instead of the
  /// usual one (``RunLifecycle/lockSlice``): with `.zero`, at every schedule while others wait. A
  /// test's knob, for the hand-offs of ``RunLockInterleavingTests``; process-wide while it runs.
  nonisolated(nonsending) func withLockSlice<T>(
    _ slice: Duration, _ body: nonisolated(nonsending) () async throws -> T
  ) async rethrows -> T {
    sliceOverride.withLock { $0 = slice }
    defer { sliceOverride.withLock { $0 = nil } }
    return try await body()
  }

  /// Passes the lock to the runs waiting for it, and takes it back behind them, for a run started
  /// at `site` that holds it; returns at once when nobody waits. Not cancellable: the caller holds
  /// the lock again when this returns, as it held it before. Checked by
  /// `ExplorationLockSharingTests` and, at every schedule, `RunLockInterleavingTests`.
  nonisolated(nonsending) func letWaitingRunsGoFirst(for site: CallSite) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let next: Waiter? = state.withLock { state in
        guard !state.waiters.isEmpty else { return nil }
        let next = state.waiters.removeFirst()
        state.holder = Holder(site: next.site, since: RealTime.now)
        state.nextID += 1
        state.waiters.append(Waiter(id: state.nextID, site: site) { _ in continuation.resume() })
        return next
      }
      if let next { next.resume(true) } else { continuation.resume() }
    }
  }

  /// Passes the lock to the next waiter, or frees it.
  func release() {
    let next: Waiter? = state.withLock { state in
      guard !state.waiters.isEmpty else {
        state.holder = nil
        return nil
      }
      let next = state.waiters.removeFirst()
      state.holder = Holder(site: next.site, since: RealTime.now)
      return next
    }
    next?.resume(true)
  }
}

/// How long an exploration waited for the process's exploration lock, and behind how many
/// explorations of other tests.
struct RunLockWait: Sendable {
  let waited: Duration
  let runsAhead: Int

  /// A wait past which the run says it waited: a sixth of the one-minute time limit the docs
  /// recommend, and longer than a whole suite's runs take on a quiet machine.
  static let worthSaying = Duration.seconds(10)

  /// The warning an exploration that waited long gives, or `nil`.
  func warning(at site: CallSite) -> String? {
    guard waited >= Self.worthSaying else { return nil }
    return "The exploration started at \(site) waited \(Self.text(waited)) for the process's "
      + "exploration lock, behind \(runsAhead) exploration(s) of other tests: explorations take "
      + "turns in a process. \(Self.advice)"
  }

  /// `duration` to the millisecond, as people write it.
  static func text(_ duration: Duration) -> String {
    Duration.milliseconds(Int64((duration / .milliseconds(1)).rounded())).lockstepText
  }

  static let advice =
    "A suite of long explorations wants them on every core in processes of their own "
    + "(`swift run lockstep-explore --workers N`, or LOCKSTEP_SHARD), or `.serialized` and time "
    + "limits that cover every exploration of the suite (see Finding races)."
}
