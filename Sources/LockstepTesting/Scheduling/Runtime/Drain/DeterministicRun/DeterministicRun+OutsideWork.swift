/// Outside work of the run, as the stand-ins report it (``OutsideWorkTracking``), passed to
/// ``RunState``; the drain is woken when it waits for it.
extension DeterministicRun {
  /// Work a job of this run (`byRunningJob`), or outside work of it, hands to another thread
  /// starts; its id, or `nil` when the run takes no more.
  func beginOutsideWork(
    _ kind: OutsideWork.Kind, label: String?, queue: UInt? = nil, byRunningJob: Bool
  ) -> UInt64? {
    state.withLock { $0.beginOutsideWork(kind, label: label, queue: queue, byRunningJob: byRunningJob) }
  }

  /// Whether the run is still running: outside work that rests in it is woken by it.
  var takesOutsideWork: Bool { state.withLock { $0.phase == .running } }

  /// The outside work of `id` returned.
  func endOutsideWork(_ id: UInt64) {
    if state.withLock({ $0.endOutsideWork(id) }) == .wakeDrain { signalWakeup() }
  }

  /// Outside work `id` (XCTest's waiter) waits for `delay` of virtual time, until `action` at its
  /// deadline; the wake-up's timer, or `nil` when the run takes no more.
  func outsideWorkRests(_ id: UInt64, for delay: Duration, _ action: @escaping @Sendable () -> Void)
    -> UInt64?
  {
    switch state.withLock({ $0.outsideWorkRests(id, for: delay, action) }) {
    case .waitInRealTime: return nil
    case .rest(let timer): return timer
    case .restAndWakeDrain(let timer):
      signalWakeup()
      return timer
    }
  }

  /// Outside work `id` waits on `object` where Lockstep sees it; whether the run took the wait
  /// (it lets time move until the wait returns).
  func outsideWorkWaits(_ id: UInt64, on object: UInt) -> Bool {
    switch state.withLock({ $0.outsideWorkWaits(id, on: object) }) {
    case .waitsAlone: return false
    case .rests: return true
    case .restsAndWakesDrain:
      signalWakeup()
      return true
    }
  }

  /// The wait of outside work `id` on an object returned.
  func outsideWorkWaitReturned(_ id: UInt64) {
    state.withLock { $0.outsideWorkWaitReturned(id) }
  }

  /// The rest of outside work `id` ended (see ``RunState/outsideWorkWakes(_:byRun:dropping:)``).
  func outsideWorkWakes(
    _ id: UInt64, byRun: Bool, dropping timer: UInt64?, release: (@Sendable () -> Void)? = nil
  ) {
    state.withLock { $0.outsideWorkWakes(id, byRun: byRun, dropping: timer, release: release) }
  }
}
