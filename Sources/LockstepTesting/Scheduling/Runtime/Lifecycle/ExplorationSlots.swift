import Foundation

/// At most as many explorations at once in a process as the machine has cores. Explorations are
/// CPU-bound and drain on threads of their own, outside the cooperative pool's width: two dozen of
/// them at once on two cores left the plain tests beside them a sliver of the machine, and their
/// real-time failure bounds ran out. Further explorations wait for a slot, first come, first served;
/// the runs of other tests never do. An exploration that waited says so in its result; a test
/// cancelled while its exploration waits stops waiting, and nothing runs.
final class ExplorationSlots: Sendable {
  static let shared = ExplorationSlots(slots: max(1, ProcessInfo.processInfo.activeProcessorCount))

  private struct Waiter {
    let id: UInt64
    /// Resumes the waiter: `true` when a slot passed to it, `false` when it was cancelled.
    let resume: @Sendable (Bool) -> Void
  }

  private struct State {
    var free: Int
    var waiters: [Waiter] = []
    var nextID: UInt64 = 0
    /// Waiters cancelled before they were queued.
    var cancelled: Set<UInt64> = []

    mutating func takeIfFree() -> Bool {
      guard free > 0 else { return false }
      free -= 1
      return true
    }
  }
  private let state: Locked<State>

  init(slots: Int) { state = Locked(State(free: slots)) }

  /// Takes a slot; returns how long that took, or `nil` when the calling task was cancelled while
  /// it waited (it holds no slot then) and `cancellable`.
  nonisolated(nonsending) func acquire(cancellable: Bool = true) async -> Duration? {
    // A free slot is taken without a continuation: nobody is queued while one is free.
    if state.withLock({ $0.takeIfFree() }) { return .zero }
    let start = RealTime.now
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    let granted = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let now: Bool? = state.withLock { state in
          if state.cancelled.remove(id) != nil { return false }
          if state.takeIfFree() { return true }
          state.waiters.append(Waiter(id: id) { continuation.resume(returning: $0) })
          return nil
        }
        if let now { continuation.resume(returning: now) }
      }
    } onCancel: {
      guard cancellable else { return }
      let waiter = state.withLock { state -> Waiter? in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.waiters.remove(at: index)
      }
      waiter?.resume(false)
    }
    return granted ? start.duration(to: RealTime.now) : nil
  }

  /// Gives a slot back: to the first waiter, or to the free ones.
  func release() {
    let next = state.withLock { state -> Waiter? in
      guard !state.waiters.isEmpty else {
        state.free += 1
        return nil
      }
      return state.waiters.removeFirst()
    }
    next?.resume(true)
  }

  /// How many explorations wait for a slot.
  var waiting: Int { state.withLock { $0.waiters.count } }

  /// How long an exploration holds its slot while others wait before it lets them go first.
  static let slice = Duration.milliseconds(100)

  /// Between two schedules of an exploration that has held its slot since `since`: when others
  /// wait and it has held it for ``slice``, gives it to them and takes one back behind them, so
  /// that a five-minute exploration does not hold up the short ones of other tests. Returns when
  /// it was taken back, then; `nil` when it kept it.
  nonisolated(nonsending) func share(heldSince since: ContinuousClock.Instant) async
    -> ContinuousClock.Instant?
  {
    guard since.duration(to: RealTime.now) >= Self.slice, waiting > 0 else { return nil }
    release()
    _ = await acquire(cancellable: false)
    return RealTime.now
  }
}
