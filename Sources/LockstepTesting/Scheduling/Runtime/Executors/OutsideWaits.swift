import Dispatch
import LockstepInterposition

/// Outside work of a run — a block on a Dispatch queue, a source's handler, a thread the run
/// started — that waits where Lockstep sees it (`BlockingWaits.c`, `ConditionCalls.c`): a wait
/// without a timeout on a semaphore, a group or a condition the run's work made lets the run's
/// virtual time move until it returns, and a blocking sleep (`Thread.sleep`,
/// `usleep`) lasts its time in virtual time, as a task's sleep does. Linux, where the stand-ins
/// are in effect; XCTest's waiter rests in its own way (``ExpectationWaits``).
enum OutsideWaits {
  /// Sets the stand-ins' observers; called once, when the runtime hooks are installed.
  static func install() {
    guard MainQueueHandOff.isInEffect else { return }
    lockstep_outside_waits_set_observer(
      { token, object, _, begins in
        guard let token, let object, let (run, id) = OutsideWaits.work(token) else { return -1 }
        guard begins else {
          run.outsideWorkWaitReturned(id)
          return 0
        }
        return run.outsideWorkWaits(id, on: UInt(bitPattern: object)) ? 0 : -1
      },
      { token, nanoseconds in
        guard let token, let (run, id) = OutsideWaits.work(token) else { return -1 }
        return OutsideWaits.sleep(id, of: run, for: .nanoseconds(nanoseconds)) ? 0 : -1
      })
  }

  /// The run in progress and the id of outside work `token`, unless it is XCTest's waiter's.
  private static func work(_ token: UnsafeMutableRawPointer) -> (DeterministicRun, UInt64)? {
    let work = Unmanaged<OutsideWorkTracking.Token>.fromOpaque(token).takeUnretainedValue()
    guard work.kind != .expectationWaiter, let id = work.id, let run = work.run else { return nil }
    return (run, id)
  }

  /// Sleeps outside work `id` for `delay` of `run`'s time: it rests until a timer of the run ends
  /// the sleep, or until the run is over. `false` when the run takes no more.
  private static func sleep(_ id: UInt64, of run: DeterministicRun, for delay: Duration) -> Bool {
    let woken = DispatchSemaphore(value: 0)
    let timer = run.outsideWorkRests(id, for: delay) { [weak run] in
      run?.outsideWorkWakes(id, byRun: false, dropping: nil)
      woken.signal()
    }
    guard let timer else { return false }
    // The wait is Lockstep's own: no stand-in tells a run of it.
    ParkedJobs.outsideRun {
      while RealTime.reading({ woken.wait(timeout: .now() + .milliseconds(100)) }) == .timedOut {
        guard run.takesOutsideWork else {
          run.outsideWorkWakes(id, byRun: false, dropping: timer)
          return
        }
      }
    }
    return true
  }
}
