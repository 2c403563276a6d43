// The blocking waits of a run's jobs (`BlockingWaits.c`): semaphores, groups, `dispatch_sync`,
// blocking sleeps and run-loop waits, and libdispatch's own calls Lockstep makes meanwhile.
#ifndef LOCKSTEP_BLOCKING_WAITS_H
#define LOCKSTEP_BLOCKING_WAITS_H

#include <stdbool.h>
#include <stdint.h>

/// What a blocking wait of a run's job waits on (`BlockingWaits.c`).
enum {
  lockstep_blocking_wait_semaphore = 0,
  lockstep_blocking_wait_group = 1,
  /// A blocking sleep (`usleep`, `nanosleep`, `sleep`): no object, only a time.
  lockstep_blocking_wait_sleep = 2,
  /// A run loop run (`CFRunLoopRunInMode`: `RunLoop.run`, XCTest's synchronous waits): the run
  /// loop is the object; its time, or `CFRunLoopStop`, ends it.
  lockstep_blocking_wait_run_loop = 3,
  /// A condition variable (`pthread_cond_wait`: `NSCondition`), in outside work; signalled by
  /// `pthread_cond_signal`.
  lockstep_blocking_wait_condition = 4,
  /// A condition variable's `pthread_cond_broadcast`: every waiter is woken.
  lockstep_blocking_wait_condition_broadcast = 5,
};

/// A job of `run` is about to wait on `object` (a semaphore or a group, by `kind`) for
/// `timeout_nanoseconds` read on the run's clocks (-1: forever). Returns the wait's result (0, or
/// non-zero when it timed out), or -1 when the run does not take the wait and the caller waits as
/// before.
typedef long (*lockstep_blocking_wait_observer)(
  void *run, void *object, int kind, int64_t timeout_nanoseconds);

/// A job of `run`, or outside work of a run (its token), signals `object`, a semaphore, before
/// libdispatch sees the signal; or leaves it, a group, after; or signals or broadcasts a condition
/// variable (by `kind`).
typedef void (*lockstep_semaphore_signal_observer)(void *run, void *token, void *object, int kind);

/// A job of `run`, or outside work of a run (its token), created `object`, a semaphore, a group, a
/// queue or a condition variable.
typedef void (*lockstep_created_object_observer)(void *run, void *token, void *object);

/// Sets the functions told of blocking waits, signals and creations (once, before any run).
void lockstep_blocking_waits_set_observer(
  lockstep_blocking_wait_observer wait, lockstep_semaphore_signal_observer signal,
  lockstep_created_object_observer created);

/// Outside work of a run (`token`: a block, a source's handler, a thread) waits on `object`, a
/// semaphore, a group or a condition variable (by `kind`): told with `begins` before the wait, and without once it
/// returned. Before, returns -1 when the run does not take the wait (it goes on as before).
typedef long (*lockstep_outside_wait_observer)(void *token, void *object, int kind, bool begins);

/// Outside work of a run (`token`) sleeps (`usleep`, `nanosleep`, `sleep`) for `nanoseconds` of
/// the run's time: 0 once the run slept it, -1 when the run does not take it (the caller sleeps).
typedef long (*lockstep_outside_sleep_observer)(void *token, int64_t nanoseconds);

/// Sets the functions told of outside work's waits and sleeps (once, before any run).
void lockstep_outside_waits_set_observer(lockstep_outside_wait_observer wait, lockstep_outside_sleep_observer sleep);

/// Counts jobs parked (`change` 1) or resumed (-1): signals are told to runs only while one is.
void lockstep_blocking_waits_parked(long change);

/// A job of `run` calls `dispatch_sync` (or, `barrier`, `dispatch_barrier_sync`) for `queue`, a
/// queue other than the main queue: returns whether the run took the call, and made it (parked,
/// when blocks of the run are on that queue).
typedef bool (*lockstep_sync_observer)(void *run, void *queue, void *block, bool barrier);

/// Sets the function told of a run's jobs' `dispatch_sync` calls (once, before any run).
void lockstep_sync_set_observer(lockstep_sync_observer observer);

/// Calls libdispatch's `dispatch_sync` (or `dispatch_barrier_sync`) itself.
void lockstep_dispatch_sync_now(void *queue, void *block, bool barrier);

/// Offers a run of `run_loop` for `nanoseconds` (-1: until stopped) by the calling thread's job to
/// its run: 0 when `CFRunLoopStop` ended it, 1 when its time passed in virtual time, -1 when the
/// run does not take it and the caller runs the run loop as before.
long lockstep_run_loop_wait_in_run(void *run_loop, int64_t nanoseconds);

/// libdispatch's own wait on `semaphore`, forever or not at all; 0 when it took a signal.
long lockstep_semaphore_wait_now(void *semaphore, bool forever);

/// libdispatch's own check that `group` is empty; 0 when it is.
long lockstep_group_wait_now(void *group);

/// libdispatch's own signal of `semaphore`.
long lockstep_semaphore_signal_now(void *semaphore);

/// A new semaphore that libdispatch signals once when `group` is empty; the caller releases it
/// (`lockstep_semaphore_release`). `NULL` where it cannot be made.
void *lockstep_group_empty_semaphore(void *group);

/// A new semaphore of libdispatch's, at 0, that no run sees made; `NULL` where there is none.
void *lockstep_semaphore_new(void);

/// Releases a semaphore `lockstep_group_empty_semaphore` or `lockstep_semaphore_new` made.
void lockstep_semaphore_release(void *semaphore);

#endif
