import Dispatch
import LockstepInterposition

/// XCTest's waits for expectations in a run's virtual time (Linux): `fulfillment(of:timeout:)`
/// waits on a thread of its own, which `ThreadStarts.c` makes the run's waiter. The waiter reads
/// the run's virtual clocks and holds virtual time still while it runs; each slice of its wait
/// (`CFRunLoopRunInMode`, `ExpectationWaits.c`) rests in the run instead, until a wake-up in
/// virtual time or a stop (a fulfilment). Either way the run waits for the waiter before its next
/// job, so a wait's timeout passes in virtual time and every run of a seed takes the same steps.
enum ExpectationWaits {
  /// Sets the stand-ins' observers; called once, when the runtime hooks are installed.
  static func install() {
    guard MainQueueHandOff.isInEffect else { return }
    lockstep_expectation_waits_set_observer(
      { token, nanoseconds, runLoop in
        guard let token, let runLoop else { return -1 }
        let work = Unmanaged<OutsideWorkTracking.Token>.fromOpaque(token).takeUnretainedValue()
        return ExpectationWaits.rest(work, for: .nanoseconds(nanoseconds), runLoop: runLoop)
      },
      { run, _, runLoop in
        guard let runLoop, !ParkedRunLoops.stop(runLoop) else { return }
        ExpectationWaits.resting.withLock { $0[UInt(bitPattern: runLoop)] }?.stop(byJob: run != nil)
      })
  }

  /// `kCFRunLoopRunStopped` and `kCFRunLoopRunTimedOut`.
  private static let stopped: Int32 = 2
  private static let timedOut: Int32 = 3

  /// The slices resting now, by their thread's run loop.
  private static let resting = Locked<[UInt: Slice]>([:])

  /// One slice of a waiter's wait.
  private final class Slice: @unchecked Sendable {
    enum Phase {
      /// Resting, with its wake-up's timer once started.
      case resting(timer: UInt64?)
      /// Its time is over in virtual time.
      case timedOut
      /// A fulfilment stopped the loop, or its real-time bound passed.
      case ended
    }

    let run: DeterministicRun
    let id: UInt64
    private let phase = Locked(Phase.resting(timer: nil))
    private let done = DispatchSemaphore(value: 0)

    init(run: DeterministicRun, id: UInt64) {
      self.run = run
      self.id = id
    }

    func started(timer: UInt64) {
      phase.withLock { phase in
        if case .resting = phase { phase = .resting(timer: timer) }
      }
    }

    /// The slice's time is over (the drain thread): the run waits for the waiter, which goes on.
    func timeIsOver() {
      let ends = phase.withLock { phase in
        guard case .resting = phase else { return false }
        phase = .timedOut
        run.outsideWorkWakes(id, byRun: true, dropping: nil)
        return true
      }
      if ends { done.signal() }
    }

    /// A fulfilment stops the loop: the run waits for the waiter, which goes on — once the step
    /// is over, when a job of the run fulfilled it (`byJob`).
    func stop(byJob: Bool) {
      var release: (@Sendable () -> Void)?
      if byJob { release = { @Sendable in self.letGo() } }
      let ends = phase.withLock { phase -> Bool in
        guard case .resting(let timer) = phase else { return false }
        phase = .ended
        run.outsideWorkWakes(id, byRun: true, dropping: timer, release: release)
        return !byJob
      }
      if ends { letGo() }
    }

    private func letGo() { done.signal() }

    /// Waits until the run ends the slice, or until the run is over; what the run loop returns.
    func wait() -> Int32 {
      // Only the run ends a slice while it runs: the same steps for every run of a seed. Once it
      // is over, its timers fire in real time; the check covers a run that ended otherwise.
      while RealTime.reading({ done.wait(timeout: .now() + .milliseconds(100)) }) == .timedOut {
        if !run.takesOutsideWork { break }
      }
      return phase.withLock { phase in
        switch phase {
        case .resting(let timer):
          phase = .ended
          run.outsideWorkWakes(id, byRun: false, dropping: timer)
          return ExpectationWaits.timedOut
        case .timedOut: return ExpectationWaits.timedOut
        case .ended: return ExpectationWaits.stopped
        }
      }
    }
  }

  /// Rests `work`'s wait for `delay` of virtual time; what the run loop returns, or -1 when the
  /// run takes no more.
  private static func rest(
    _ work: OutsideWorkTracking.Token, for delay: Duration, runLoop: UnsafeMutableRawPointer
  ) -> Int32 {
    guard work.kind == .expectationWaiter, let id = work.id, let run = work.run else { return -1 }
    let slice = Slice(run: run, id: id)
    let key = UInt(bitPattern: runLoop)
    resting.withLock { $0[key] = slice }
    lockstep_run_loop_waits_taken(1)
    defer {
      resting.withLock { $0[key] = nil }
      lockstep_run_loop_waits_taken(-1)
    }
    guard let timer = run.outsideWorkRests(id, for: delay, { slice.timeIsOver() }) else { return -1 }
    slice.started(timer: timer)
    return slice.wait()
  }
}
