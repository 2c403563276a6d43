import Foundation
import LockstepInterposition

/// A lock with a condition for Lockstep's own threads. Its calls go to the C library itself,
/// never through the lock stand-ins (`LockCalls.c`): a run's job must not take Lockstep's own
/// waits for locks of the code under test.
final class PrivateCondition: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deinitialize(count: 1)
    condition.deallocate()
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  func lock() { lockstep_private_mutex_lock(mutex) }

  func unlock() { lockstep_private_mutex_unlock(mutex) }

  /// Waits for a signal; the lock is held.
  func wait() { lockstep_private_condition_wait(condition, mutex) }

  /// Waits for a signal until `deadline`, a real instant (read with ``RealTime``); `false` when
  /// the deadline came first. The lock is held.
  func wait(until deadline: ContinuousClock.Instant) -> Bool {
    let remaining = min(max(RealTime.now.duration(to: deadline), .zero), .seconds(86_400))
    // The C library's deadline is on the real wall clock.
    let wall = RealTime.reading { Date().timeIntervalSince1970 }
    let deadline = Int64(wall * 1e9) + remaining.wholeNanoseconds
    return lockstep_private_condition_timed_wait(condition, mutex, deadline)
  }

  func signal() { pthread_cond_signal(condition) }

  func broadcast() { pthread_cond_broadcast(condition) }
}
