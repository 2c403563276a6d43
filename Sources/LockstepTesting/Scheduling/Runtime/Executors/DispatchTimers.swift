import Dispatch
import LockstepInterposition

/// Dispatch timer sources set from a run tick in its virtual time (Linux): `DispatchSources.c` hands
/// the run each timer that a job of the run, or its outside work, sets
/// (`DispatchSourceTimer.schedule(deadline:repeating:)`); libdispatch's timer is disarmed, and each
/// time a deadline comes in virtual time the run makes the source fire once, at once, keeping
/// virtual time still until the source's event handler has run (as for a signal on its way). A
/// cancelled source stops ticking; a timer still pending when the run ends ticks on in real time.
enum DispatchTimers {
  /// Sets the stand-ins' observers; called once, when the runtime hooks are installed.
  static func install() {
    guard MainQueueHandOff.isInEffect else { return }
    lockstep_timer_set_observer(
      { run, token, source, delay, interval in
        guard let source else { return false }
        let owner =
          run.map { Unmanaged<DeterministicRun>.fromOpaque($0).takeUnretainedValue() }
          ?? token.flatMap { Unmanaged<OutsideWorkTracking.Token>.fromOpaque($0).takeUnretainedValue().run }
        guard let owner else { return false }
        return DispatchTimers.take(
          Timer(source: source, interval: interval < 0 ? nil : .nanoseconds(interval)), in: owner,
          after: .nanoseconds(delay))
      },
      { source in
        guard let source else { return }
        _ = DispatchTimers.current.withLock { $0.removeValue(forKey: UInt(bitPattern: source)) }
      })
  }

  /// One timer a run took: its source (retained until the timer is done with it) and interval.
  private final class Timer: @unchecked Sendable {
    let source: UnsafeMutableRawPointer
    let interval: Duration?
    init(source: UnsafeMutableRawPointer, interval: Duration?) {
      self.source = source
      self.interval = interval
    }
  }

  /// The timer in effect for each source: a later `schedule` replaces it, `cancel()` removes it.
  private static let current = Locked<[UInt: Timer]>([:])

  /// Takes `timer` into `run`, first due after `delay`; `false` when the run takes no more.
  private static func take(_ timer: Timer, in run: DeterministicRun, after delay: Duration) -> Bool {
    lockstep_dispatch_retain(timer.source)
    current.withLock { $0[UInt(bitPattern: timer.source)] = timer }
    guard schedule(timer, in: run, after: delay) else {
      forget(timer)
      return false
    }
    return true
  }

  private static func schedule(_ timer: Timer, in run: DeterministicRun, after delay: Duration) -> Bool {
    run.wake(after: delay) { fire(timer, in: run) }
  }

  /// A deadline of `timer` came (on the drain thread, or in real time once the run has ended).
  private static func fire(_ timer: Timer, in run: DeterministicRun) {
    guard current.withLock({ $0[UInt(bitPattern: timer.source)] === timer }) else {
      lockstep_dispatch_release(timer.source)  // replaced or cancelled
      return
    }
    // The tick is on its way: virtual time stands still until the event handler has run.
    _ = run.beginOutsideWork(.signal, label: nil, byRunningJob: false)
    lockstep_timer_fire_now(timer.source)
    guard let interval = timer.interval else {
      forget(timer)
      return
    }
    if !schedule(timer, in: run, after: interval) {
      // The run is over: libdispatch ticks on, in real time.
      lockstep_timer_restore(timer.source, Int64(interval.wholeNanoseconds), Int64(interval.wholeNanoseconds))
      forget(timer)
    }
  }

  private static func forget(_ timer: Timer) {
    current.withLock { timers in
      if timers[UInt(bitPattern: timer.source)] === timer { timers[UInt(bitPattern: timer.source)] = nil }
    }
    lockstep_dispatch_release(timer.source)
  }
}
