// The lock calls of a run's jobs (`LockCalls.c`), and the C library's own lock calls for
// Lockstep's locks, which are never scheduling points.
#ifndef LOCKSTEP_LOCKS_H
#define LOCKSTEP_LOCKS_H

#include <stdbool.h>
#include <stdint.h>

/// What a lock call of a run's job is (`LockCalls.c`).
enum {
  /// `pthread_mutex_lock`, before the C library sees it: a scheduling point.
  lockstep_lock_event_lock = 0,
  /// `pthread_mutex_trylock`, before the C library sees it: a scheduling point.
  lockstep_lock_event_try = 1,
  /// The C library gave the job the mutex: a `trylock` that succeeded, or a condition's wait that
  /// took it back.
  lockstep_lock_event_taken = 2,
  /// `pthread_mutex_unlock`, after the C library saw it; or a condition's wait letting it go.
  lockstep_lock_event_unlock = 3,
  /// A read-write lock (`pthread_rwlock_rdlock`, `pthread_rwlock_wrlock`): seen, no scheduling point.
  lockstep_lock_event_unscheduled = 4,
};

/// What else the run is told of a lock call (`flags`).
enum {
  /// The calling thread holds a lock of the runtime, Foundation or the C library.
  lockstep_lock_holds_system_lock = 1,
  /// The mutex is recursive (`NSRecursiveLock`).
  lockstep_lock_recursive = 2,
};

/// A job of `run`, on thread `thread`, makes lock call `event` on `mutex` from `caller` (a return
/// address in the code under test). Returns 0 when the call goes on to the C library, non-zero
/// when it returns at once: the run is over, and another of its parked threads holds the mutex.
typedef int (*lockstep_lock_observer)(
  void *run, void *mutex, int event, int flags, uintptr_t thread, uintptr_t caller);

/// Sets the function told of the lock calls of runs' jobs (once, before any run).
void lockstep_locks_set_observer(lockstep_lock_observer observer);

/// A stretch of a run's jobs starts on the calling thread: it holds none of the runtime's locks.
void lockstep_locks_job_starts(void);

/// While `on`, the calling thread's lock calls outside runs are where Foundation's `NSLocking`
/// witnesses call the C library from: those callers are looked past (`LockCalls.c`).
void lockstep_locks_probe(bool on);

/// The C library's `pthread_mutex_lock` itself, for Lockstep's own locks: never a scheduling point.
/// Returns what it returns (a tail call).
int lockstep_private_mutex_lock(void *mutex);

/// The C library's `pthread_mutex_unlock` itself, for Lockstep's own locks; returns what it returns.
int lockstep_private_mutex_unlock(void *mutex);

/// The C library's `pthread_cond_wait` itself, for Lockstep's own conditions.
void lockstep_private_condition_wait(void *condition, void *mutex);

/// The C library's `pthread_cond_timedwait` itself, until `deadline_nanoseconds` since 1970 on the
/// real wall clock; whether the condition was signalled (`false`: the deadline came first).
bool lockstep_private_condition_timed_wait(void *condition, void *mutex, int64_t deadline_nanoseconds);

#endif
