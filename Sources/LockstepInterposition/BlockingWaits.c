// The blocking waits of a deterministic run's jobs: `DispatchSemaphore.wait` and
// `DispatchGroup.wait` reach libdispatch's exported `dispatch_semaphore_wait` and
// `dispatch_group_wait`, `DispatchSemaphore.signal` its `dispatch_semaphore_signal`, and
// `DispatchQueue.sync` its `dispatch_sync`. While one of a run's jobs runs on the calling thread, a
// wait — or a blocking sleep, `usleep`, `nanosleep`, `sleep` — is offered to the run first, which
// parks the job on this thread and goes on draining on another (see the Swift side,
// `ParkedJobs.swift`); a signal a job sends while a job of its run is parked is told to the run
// before libdispatch sees it, and the semaphores, groups and queues a run's jobs create are told
// to the run (a wait on one is durably blocked; a wait on one, or a `sync`, is a choice point of an
// exploration). Outside work of a run — a block, a source's handler, a thread it started — tells
// its run of its waits and blocking sleeps instead (`OutsideWaits.swift`): virtual time may move
// while it waits, and a sleep lasts its time in virtual time. Everywhere else the call goes on to
// libdispatch unchanged. Linux only, as the
// other stand-ins; Apple platforms bind each call to its library, and nothing is defined here.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <time.h>
  #include <unistd.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/DispatchObjects.h"
#include "Internal/NextDefinition.h"
#include "Internal/OutsideWaits.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef long (*dispatch_wait_function)(void *object, uint64_t timeout);
typedef long (*dispatch_signal_function)(void *semaphore);
typedef void *(*semaphore_create_function)(long value);
typedef void (*dispatch_function)(void *context);
typedef void (*group_notify_f_function)(void *group, void *queue, void *context, dispatch_function work);
typedef void *(*global_queue_function)(long identifier, unsigned long flags);
typedef void (*dispatch_object_function)(void *object);

static dispatch_wait_function next_semaphore_wait;
static dispatch_wait_function next_group_wait;
static dispatch_signal_function next_semaphore_signal;
static semaphore_create_function next_semaphore_create;
static group_notify_f_function next_group_notify_f;
static global_queue_function next_global_queue;
static dispatch_object_function next_retain;
static dispatch_object_function next_release;
static dispatch_object_function next_group_leave;
typedef void *(*group_create_function)(void);
static group_create_function next_group_create;
static lockstep_created_object_observer created_observer;
static lockstep_blocking_wait_observer wait_observer;
static lockstep_semaphore_signal_observer signal_observer;
static lockstep_outside_wait_observer outside_wait_observer;
static lockstep_outside_sleep_observer outside_sleep_observer;
/// How many jobs of runs are parked now, and waits of outside work told to runs: signals are told
/// to a run only while one is.
static long parked_jobs;

/// `wait` on `object` until `timeout`, in real time where the calling thread runs a run's job: the
/// caller computed the deadline on the run's virtual clocks, and libdispatch would turn it into a
/// deadline of the virtual wall clock for the kernel, which compares it with the real one — so the
/// wait would expire at once. The wait gets the same time from now on the real clocks.
static long wait_in_real_time(dispatch_wait_function wait, void *object, uint64_t timeout) {
  if (timeout == 0 || timeout == ~0ull) return wait(object, timeout);
  int64_t remaining = lockstep_dispatch_time_remaining(timeout);
  lockstep_run_context real = {.clocks = NULL}, saved;
  lockstep_run_context_swap_in(&real, lockstep_run_context_clocks, &saved);
  int64_t now = lockstep_real_clock_nanoseconds(CLOCK_MONOTONIC);
  // An uptime deadline: the monotonic clock's nanoseconds.
  long result = wait(object, now > 0 ? (uint64_t)(now + remaining) : timeout);
  lockstep_run_context_swap_out(&saved, lockstep_run_context_clocks);
  return result;
}

bool lockstep_outside_wait_begins(void *token, void *object, int kind) {
  lockstep_outside_wait_observer observer = __atomic_load_n(&outside_wait_observer, __ATOMIC_ACQUIRE);
  if (observer == NULL) return false;
  // Counted first: a signal that comes before the run knows of the wait is told all the same.
  __atomic_add_fetch(&parked_jobs, 1, __ATOMIC_ACQ_REL);
  if (observer(token, object, kind, true) >= 0) return true;
  __atomic_sub_fetch(&parked_jobs, 1, __ATOMIC_ACQ_REL);
  return false;
}

void lockstep_outside_wait_ends(void *token, void *object, int kind) {
  lockstep_outside_wait_observer observer = __atomic_load_n(&outside_wait_observer, __ATOMIC_ACQUIRE);
  if (observer != NULL) observer(token, object, kind, false);
  __atomic_sub_fetch(&parked_jobs, 1, __ATOMIC_ACQ_REL);
}

/// A wait of outside work `token` on `object`: a wait without a timeout is told to its run before
/// and after, so that virtual time may move meanwhile; one with a timeout holds time still, its
/// timeout lasting on the real clock (it may be how long the work waits for something outside).
static long outside_wait(void *token, dispatch_wait_function next, void *object, uint64_t timeout, int kind) {
  if (timeout != ~0ull || !lockstep_outside_wait_begins(token, object, kind)) {
    return wait_in_real_time(next, object, timeout);
  }
  long result = wait_in_real_time(next, object, timeout);
  lockstep_outside_wait_ends(token, object, kind);
  return result;
}

/// A wait of `kind` on `object`: offered to the run whose job runs on the calling thread, if any.
static long blocking_wait(dispatch_wait_function next, void *object, uint64_t timeout, int kind) {
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1)) {
    // A block or a thread of a run reads its clocks too: its deadline is the run's.
    if (__builtin_expect(lockstep_thread.context.clocks == NULL, 1)) return next(object, timeout);
    void *token = lockstep_current_outside_token();
    if (token != NULL) return outside_wait(token, next, object, timeout, kind);
    return wait_in_real_time(next, object, timeout);
  }
  lockstep_blocking_wait_observer observer = __atomic_load_n(&wait_observer, __ATOMIC_ACQUIRE);
  if (observer != NULL && timeout != 0) {
    long result = observer(run, object, kind, lockstep_dispatch_time_remaining(timeout));
    if (result >= 0) return result;
  }
  return wait_in_real_time(next, object, timeout);
}

long dispatch_semaphore_wait(void *semaphore, uint64_t timeout) {
  dispatch_wait_function next = (dispatch_wait_function)lockstep_next_definition(
    (void **)&next_semaphore_wait, "dispatch_semaphore_wait");
  return blocking_wait(next, semaphore, timeout, lockstep_blocking_wait_semaphore);
}

long dispatch_group_wait(void *group, uint64_t timeout) {
  dispatch_wait_function next =
    (dispatch_wait_function)lockstep_next_definition((void **)&next_group_wait, "dispatch_group_wait");
  return blocking_wait(next, group, timeout, lockstep_blocking_wait_group);
}

void lockstep_blocking_waits_tell_signal(void *object, int kind) {
  if (__builtin_expect(__atomic_load_n(&parked_jobs, __ATOMIC_ACQUIRE) == 0, 1)) return;
  void *run = lockstep_current_run();
  void *token = run == NULL ? lockstep_current_outside_token() : NULL;
  lockstep_semaphore_signal_observer observer = __atomic_load_n(&signal_observer, __ATOMIC_ACQUIRE);
  if ((run != NULL || token != NULL) && observer != NULL) observer(run, token, object, kind);
}

long dispatch_semaphore_signal(void *semaphore) {
  // Before libdispatch wakes a waiter: the run knows which parked job resumes next.
  lockstep_blocking_waits_tell_signal(semaphore, lockstep_blocking_wait_semaphore);
  return lockstep_semaphore_signal_now(semaphore);
}

void *lockstep_blocking_waits_tell_created(void *object) {
  if (object == NULL) return object;
  void *run = lockstep_current_run();
  void *token = run == NULL ? lockstep_current_outside_token() : NULL;
  if (__builtin_expect(run == NULL && token == NULL, 1)) return object;
  lockstep_created_object_observer observer = __atomic_load_n(&created_observer, __ATOMIC_ACQUIRE);
  if (observer != NULL) observer(run, token, object);
  return object;
}

void *dispatch_semaphore_create(long value) {
  semaphore_create_function create = (semaphore_create_function)lockstep_next_definition(
    (void **)&next_semaphore_create, "dispatch_semaphore_create");
  return lockstep_blocking_waits_tell_created(create(value));
}

// Queues a run's jobs create: a `sync` on one of them is a choice point of an exploration (a
// serial queue used as a lock), as a wait on a semaphore they create is.

typedef void *(*queue_create_function)(const char *label, void *attributes);
typedef void *(*queue_create_with_target_function)(const char *label, void *attributes, void *target);
static queue_create_function next_queue_create;
static queue_create_with_target_function next_queue_create_with_target;

void *dispatch_queue_create(const char *label, void *attributes) {
  queue_create_function create = (queue_create_function)lockstep_next_definition(
    (void **)&next_queue_create, "dispatch_queue_create");
  return lockstep_blocking_waits_tell_created(create(label, attributes));
}

void *dispatch_queue_create_with_target(const char *label, void *attributes, void *target) {
  queue_create_with_target_function create = (queue_create_with_target_function)lockstep_next_definition(
    (void **)&next_queue_create_with_target, "dispatch_queue_create_with_target");
  return lockstep_blocking_waits_tell_created(create(label, attributes, target));
}

void *dispatch_group_create(void) {
  group_create_function create = (group_create_function)lockstep_next_definition(
    (void **)&next_group_create, "dispatch_group_create");
  return lockstep_blocking_waits_tell_created(create());
}

void dispatch_group_leave(void *group) {
  dispatch_object_function next =
    (dispatch_object_function)lockstep_next_definition((void **)&next_group_leave, "dispatch_group_leave");
  next(group);
  // After: the run asks whether the group is empty now.
  lockstep_blocking_waits_tell_signal(group, lockstep_blocking_wait_group);
}

// `queue.sync` from a run's job: when blocks of the run are queued on `queue`, the call waits
// for them, and one of them may wait for the run; the run parks the job for the call's length.

typedef void (*dispatch_sync_function)(void *queue, void *block);
static dispatch_sync_function next_dispatch_sync;
static dispatch_sync_function next_dispatch_barrier_sync;
static lockstep_sync_observer sync_observer;

void lockstep_dispatch_sync_now(void *queue, void *block, bool barrier) {
  dispatch_sync_function next = barrier
    ? (dispatch_sync_function)lockstep_next_definition((void **)&next_dispatch_barrier_sync, "dispatch_barrier_sync")
    : (dispatch_sync_function)lockstep_next_definition((void **)&next_dispatch_sync, "dispatch_sync");
  next(queue, block);
}

/// A sync call of a run's job, offered to its run first.
static void sync_call(void *queue, void *block, bool barrier) {
  void *run = lockstep_current_run();
  if (__builtin_expect(run != NULL, 0)) {
    lockstep_sync_observer observer = __atomic_load_n(&sync_observer, __ATOMIC_ACQUIRE);
    if (observer != NULL && observer(run, queue, block, barrier)) return;
  }
  lockstep_dispatch_sync_now(queue, block, barrier);
}

void dispatch_sync(void *queue, void *block) { sync_call(queue, block, false); }

void dispatch_barrier_sync(void *queue, void *block) { sync_call(queue, block, true); }

void lockstep_sync_set_observer(lockstep_sync_observer observer) {
  __atomic_store_n(&sync_observer, observer, __ATOMIC_RELEASE);
}

// Blocking sleeps: `usleep`, `nanosleep`, `sleep` (`Thread.sleep` reaches `nanosleep`). In a run's
// job the sleep is parked and lasts its time in the run's virtual time.

typedef int (*usleep_function)(useconds_t microseconds);
typedef int (*nanosleep_function)(const struct timespec *request, struct timespec *remaining);
typedef unsigned int (*sleep_function)(unsigned int seconds);
static usleep_function next_usleep;
static nanosleep_function next_nanosleep;
static sleep_function next_sleep;

/// Whether the run of the calling thread's job, or of its outside work, took a sleep of
/// `nanoseconds`, and slept it.
static bool slept_in_run(int64_t nanoseconds) {
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1)) {
    if (__builtin_expect(lockstep_thread.context.clocks == NULL, 1) || nanoseconds <= 0) return false;
    void *token = lockstep_current_outside_token();
    lockstep_outside_sleep_observer sleep = __atomic_load_n(&outside_sleep_observer, __ATOMIC_ACQUIRE);
    return token != NULL && sleep != NULL && sleep(token, nanoseconds) >= 0;
  }
  if (nanoseconds <= 0) return false;
  lockstep_blocking_wait_observer observer = __atomic_load_n(&wait_observer, __ATOMIC_ACQUIRE);
  return observer != NULL && observer(run, NULL, lockstep_blocking_wait_sleep, nanoseconds) >= 0;
}

long lockstep_run_loop_wait_in_run(void *run_loop, int64_t nanoseconds) {
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1) || run_loop == NULL) return -1;
  lockstep_blocking_wait_observer observer = __atomic_load_n(&wait_observer, __ATOMIC_ACQUIRE);
  return observer != NULL ? observer(run, run_loop, lockstep_blocking_wait_run_loop, nanoseconds) : -1;
}

int usleep(useconds_t microseconds) {
  if (slept_in_run((int64_t)microseconds * 1000)) return 0;
  usleep_function next = (usleep_function)lockstep_next_definition((void **)&next_usleep, "usleep");
  return next(microseconds);
}

int nanosleep(const struct timespec *request, struct timespec *remaining) {
  if (request != NULL && request->tv_sec >= 0 && request->tv_nsec >= 0
    && slept_in_run((int64_t)request->tv_sec * 1000000000 + request->tv_nsec))
  {
    if (remaining != NULL) *remaining = (struct timespec){0, 0};
    return 0;
  }
  nanosleep_function next = (nanosleep_function)lockstep_next_definition((void **)&next_nanosleep, "nanosleep");
  return next(request, remaining);
}

unsigned int sleep(unsigned int seconds) {
  if (slept_in_run((int64_t)seconds * 1000000000)) return 0;
  sleep_function next = (sleep_function)lockstep_next_definition((void **)&next_sleep, "sleep");
  return next(seconds);
}

void *lockstep_semaphore_new(void) {
  semaphore_create_function create = (semaphore_create_function)lockstep_next_definition(
    (void **)&next_semaphore_create, "dispatch_semaphore_create");
  return create == NULL ? NULL : create(0);
}

long lockstep_semaphore_wait_now(void *semaphore, bool forever) {
  dispatch_wait_function next = (dispatch_wait_function)lockstep_next_definition(
    (void **)&next_semaphore_wait, "dispatch_semaphore_wait");
  return next(semaphore, forever ? ~0ull : 0);
}

long lockstep_group_wait_now(void *group) {
  dispatch_wait_function next =
    (dispatch_wait_function)lockstep_next_definition((void **)&next_group_wait, "dispatch_group_wait");
  return next(group, 0);
}

long lockstep_semaphore_signal_now(void *semaphore) {
  dispatch_signal_function next = (dispatch_signal_function)lockstep_next_definition(
    (void **)&next_semaphore_signal, "dispatch_semaphore_signal");
  return next(semaphore);
}

static void signal_and_release(void *semaphore) {
  lockstep_semaphore_signal_now(semaphore);
  dispatch_object_function release =
    (dispatch_object_function)lockstep_next_definition((void **)&next_release, "dispatch_release");
  release(semaphore);
}

void *lockstep_group_empty_semaphore(void *group) {
  semaphore_create_function create = (semaphore_create_function)lockstep_next_definition(
    (void **)&next_semaphore_create, "dispatch_semaphore_create");
  group_notify_f_function notify = (group_notify_f_function)lockstep_next_definition(
    (void **)&next_group_notify_f, "dispatch_group_notify_f");
  global_queue_function global = (global_queue_function)lockstep_next_definition(
    (void **)&next_global_queue, "dispatch_get_global_queue");
  dispatch_object_function retain =
    (dispatch_object_function)lockstep_next_definition((void **)&next_retain, "dispatch_retain");
  if (create == NULL || notify == NULL || global == NULL || retain == NULL) return NULL;
  void *semaphore = create(0);
  if (semaphore == NULL) return NULL;
  retain(semaphore);  // the notification's, released once it signalled
  notify(group, global(0, 0), semaphore, signal_and_release);
  return semaphore;
}

void lockstep_semaphore_release(void *semaphore) {
  dispatch_object_function release =
    (dispatch_object_function)lockstep_next_definition((void **)&next_release, "dispatch_release");
  release(semaphore);
}

void lockstep_blocking_waits_set_observer(
  lockstep_blocking_wait_observer wait, lockstep_semaphore_signal_observer signal,
  lockstep_created_object_observer created)
{
  __atomic_store_n(&created_observer, created, __ATOMIC_RELEASE);
  __atomic_store_n(&signal_observer, signal, __ATOMIC_RELEASE);
  __atomic_store_n(&wait_observer, wait, __ATOMIC_RELEASE);
}

void lockstep_outside_waits_set_observer(lockstep_outside_wait_observer wait, lockstep_outside_sleep_observer sleep) {
  __atomic_store_n(&outside_sleep_observer, sleep, __ATOMIC_RELEASE);
  __atomic_store_n(&outside_wait_observer, wait, __ATOMIC_RELEASE);
}

void lockstep_blocking_waits_parked(long change) {
  __atomic_add_fetch(&parked_jobs, change, __ATOMIC_ACQ_REL);
}

#else

long lockstep_semaphore_wait_now(void *semaphore, bool forever) {
  (void)semaphore;
  (void)forever;
  return 1;
}
long lockstep_group_wait_now(void *group) {
  (void)group;
  return 1;
}
long lockstep_semaphore_signal_now(void *semaphore) {
  (void)semaphore;
  return 0;
}
void *lockstep_group_empty_semaphore(void *group) {
  (void)group;
  return NULL;
}
void *lockstep_semaphore_new(void) { return NULL; }
void lockstep_semaphore_release(void *semaphore) { (void)semaphore; }
void lockstep_blocking_waits_set_observer(
  lockstep_blocking_wait_observer wait, lockstep_semaphore_signal_observer signal,
  lockstep_created_object_observer created)
{
  (void)wait;
  (void)signal;
  (void)created;
}
void lockstep_outside_waits_set_observer(lockstep_outside_wait_observer wait, lockstep_outside_sleep_observer sleep) {
  (void)wait;
  (void)sleep;
}
void lockstep_blocking_waits_parked(long change) { (void)change; }
long lockstep_run_loop_wait_in_run(void *run_loop, int64_t nanoseconds) {
  (void)run_loop;
  (void)nanoseconds;
  return -1;
}
void lockstep_sync_set_observer(lockstep_sync_observer observer) { (void)observer; }
void lockstep_dispatch_sync_now(void *queue, void *block, bool barrier) {
  (void)queue;
  (void)block;
  (void)barrier;
}

#endif
