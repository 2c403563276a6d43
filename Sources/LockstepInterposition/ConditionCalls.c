// Condition variables (`NSCondition`, `pthread_cond_*`). A condition's wait in a deterministic
// run's job lets its mutex go and takes it again inside the C library: the run is told of both
// (`LockCalls.c`), so that it does not take the mutex for held while the job waits. A condition
// that a run's job or outside work creates is told to the run, as a semaphore is; a wait on one in
// outside work of the run (a block, a thread it started), without a deadline, lets virtual time
// move until it returns,
// and a signal or broadcast holds time again until the waiter is back (`BlockingWaits.c`,
// `OutsideWaits.swift`). Everywhere else each call goes on to the C library unchanged. Linux
// only, as the other stand-ins.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <errno.h>
  #include <pthread.h>
  #include <time.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/NextDefinition.h"
#include "Internal/LockCallers.h"
#include "Internal/OutsideWaits.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef int (*condition_init_function)(pthread_cond_t *condition, const pthread_condattr_t *attributes);
typedef int (*condition_function)(pthread_cond_t *condition);
typedef int (*condition_wait_function)(pthread_cond_t *condition, pthread_mutex_t *mutex);
typedef int (*condition_timed_wait_function)(
  pthread_cond_t *condition, pthread_mutex_t *mutex, const struct timespec *deadline);

static condition_init_function next_condition_init;
static condition_function next_condition_signal;
static condition_function next_condition_broadcast;
static condition_wait_function next_condition_wait;
static condition_timed_wait_function next_condition_timed_wait;

int pthread_cond_init(pthread_cond_t *condition, const pthread_condattr_t *attributes) {
  condition_init_function next = (condition_init_function)lockstep_next_definition(
    (void **)&next_condition_init, "pthread_cond_init");
  int result = next(condition, attributes);
  if (result == 0) lockstep_blocking_waits_tell_created(condition);
  return result;
}

int pthread_cond_signal(pthread_cond_t *condition) {
  condition_function next = (condition_function)lockstep_next_definition(
    (void **)&next_condition_signal, "pthread_cond_signal");
  lockstep_blocking_waits_tell_signal(condition, lockstep_blocking_wait_condition);
  return next(condition);
}

int pthread_cond_broadcast(pthread_cond_t *condition) {
  condition_function next = (condition_function)lockstep_next_definition(
    (void **)&next_condition_broadcast, "pthread_cond_broadcast");
  lockstep_blocking_waits_tell_signal(condition, lockstep_blocking_wait_condition_broadcast);
  return next(condition);
}

int pthread_cond_wait(pthread_cond_t *condition, pthread_mutex_t *mutex) {
  condition_wait_function next = (condition_wait_function)lockstep_next_definition(
    (void **)&next_condition_wait, "pthread_cond_wait");
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1)) {
    // Outside work of a run (which reads its clocks) tells the run of its wait, before and after.
    void *token = lockstep_thread.context.clocks == NULL ? NULL : lockstep_current_outside_token();
    int kind = lockstep_blocking_wait_condition;
    if (token == NULL || !lockstep_outside_wait_begins(token, condition, kind)) return next(condition, mutex);
    int result = next(condition, mutex);
    lockstep_outside_wait_ends(token, condition, kind);
    return result;
  }
  const void *caller = __builtin_return_address(0);
  if (!lockstep_lock_caller_is_tested(caller)) return next(condition, mutex);
  lockstep_lock_tell(run, mutex, lockstep_lock_event_unlock, caller);
  int result = next(condition, mutex);
  lockstep_lock_tell(run, mutex, lockstep_lock_event_taken, caller);
  return result;
}

int pthread_cond_timedwait(
  pthread_cond_t *condition, pthread_mutex_t *mutex, const struct timespec *deadline)
{
  condition_timed_wait_function next = (condition_timed_wait_function)lockstep_next_definition(
    (void **)&next_condition_timed_wait, "pthread_cond_timedwait");
  void *run = lockstep_current_run();
  // Outside work's wait with a deadline holds virtual time still, as a semaphore's does.
  if (__builtin_expect(run == NULL, 1)) return next(condition, mutex, deadline);
  const void *caller = __builtin_return_address(0);
  if (!lockstep_lock_caller_is_tested(caller)) return next(condition, mutex, deadline);
  lockstep_lock_tell(run, mutex, lockstep_lock_event_unlock, caller);
  int result = next(condition, mutex, deadline);
  lockstep_lock_tell(run, mutex, lockstep_lock_event_taken, caller);
  return result;
}

void lockstep_private_condition_wait(void *condition, void *mutex) {
  condition_wait_function next = (condition_wait_function)lockstep_next_definition(
    (void **)&next_condition_wait, "pthread_cond_wait");
  next((pthread_cond_t *)condition, (pthread_mutex_t *)mutex);
}

bool lockstep_private_condition_timed_wait(void *condition, void *mutex, int64_t deadline_nanoseconds) {
  condition_timed_wait_function next = (condition_timed_wait_function)lockstep_next_definition(
    (void **)&next_condition_timed_wait, "pthread_cond_timedwait");
  struct timespec deadline = {
    (time_t)(deadline_nanoseconds / 1000000000), (long)(deadline_nanoseconds % 1000000000)};
  return next((pthread_cond_t *)condition, (pthread_mutex_t *)mutex, &deadline) != ETIMEDOUT;
}

#else

  #include <errno.h>
  #include <pthread.h>
  #include <time.h>

void lockstep_private_condition_wait(void *condition, void *mutex) {
  pthread_cond_wait((pthread_cond_t *)condition, (pthread_mutex_t *)mutex);
}

bool lockstep_private_condition_timed_wait(void *condition, void *mutex, int64_t deadline_nanoseconds) {
  struct timespec deadline = {
    (time_t)(deadline_nanoseconds / 1000000000), (long)(deadline_nanoseconds % 1000000000)};
  return pthread_cond_timedwait((pthread_cond_t *)condition, (pthread_mutex_t *)mutex, &deadline)
    != ETIMEDOUT;
}

#endif
