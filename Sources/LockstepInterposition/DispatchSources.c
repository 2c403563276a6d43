// Dispatch sources set from a run: `dispatch_source_set_registration_handler`,
// `dispatch_source_set_event_handler`, `dispatch_resume`, `dispatch_activate`,
// `dispatch_source_set_timer` and `dispatch_source_cancel`. A source's handlers run on its queue
// when the source says, not when they are set: a handler set from a run's job (or its outside
// work) is replaced by a block of Lockstep's that runs it as outside work of the run, and a timer
// set so is the run's, fired in the run's virtual time. Everywhere else each call goes on to
// libdispatch unchanged. Linux, where the executable's definitions come first; Apple platforms
// bind each call to its library, and nothing is defined here.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <pthread.h>
  #include <stdlib.h>
  #include <time.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/DispatchObjects.h"
#include "Internal/NextDefinition.h"
#include "Internal/OutsideWork.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef void (*dispatch_object_function)(void *object);

// A handler set from a run is laid out as a global block by hand (the C target is built without
// blocks), never copied or freed by libdispatch, and kept for the process's life.

/// A handler set from a run, as a global block, and what it needs.
typedef struct {
  lockstep_global_block_head head;
  void *handler;
  void *token;
  bool registration;
  /// For a registration handler: the work of the source's registration once the source was
  /// resumed, which holds virtual time still until the handler has run.
  void *resumed;
} source_handler_block;

typedef void (*source_handler_function)(void *source, void *handler);
static source_handler_function next_set_registration_handler;
static source_handler_function next_set_event_handler;

/// Runs a handler set from a run: a registration handler once, as a block that waited; an event
/// handler each time the source fires, as a block of the run's (and, for a signal, as the
/// delivery of the signals the run sent itself).
static void run_source_handler(void *block) {
  source_handler_block *wrapper = block;
  lockstep_run_context saved;
  lockstep_outside_work_enter(wrapper->token, &saved);
  void *running = lockstep_outside_work_begin(
    NULL, wrapper->registration ? lockstep_outside_async : lockstep_outside_source_event);
  if (wrapper->registration) lockstep_outside_work_end(wrapper->token);
  if (running != NULL) lockstep_outside_work_switch(running);
  ((lockstep_block_layout *)wrapper->handler)->invoke(wrapper->handler);
  lockstep_run_context_swap_out(&saved, LOCKSTEP_OUTSIDE_WORK_FIELDS);
  lockstep_outside_work_end(running);
  if (wrapper->registration) {
    lockstep_outside_work_end(__atomic_exchange_n(&wrapper->resumed, NULL, __ATOMIC_ACQ_REL));
  }
}

/// The sources whose registration handler was set from a run and that were not resumed yet.
enum { pending_registration_limit = 64 };
static struct {
  void *source;
  source_handler_block *wrapper;
} pending_registrations[pending_registration_limit];
static int pending_registration_count;
static pthread_mutex_t pending_registrations_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_pending_registration(void *source, source_handler_block *wrapper) {
  lockstep_private_mutex_lock(&pending_registrations_lock);
  if (pending_registration_count < pending_registration_limit) {
    pending_registrations[pending_registration_count].source = source;
    pending_registrations[pending_registration_count].wrapper = wrapper;
    __atomic_store_n(&pending_registration_count, pending_registration_count + 1, __ATOMIC_RELEASE);
  }
  lockstep_private_mutex_unlock(&pending_registrations_lock);
}

/// The wrapped registration handler of `source`, taken from the pending ones; `NULL` if none.
static source_handler_block *take_pending_registration(void *source) {
  if (__builtin_expect(__atomic_load_n(&pending_registration_count, __ATOMIC_ACQUIRE) == 0, 1)) {
    return NULL;
  }
  source_handler_block *wrapper = NULL;
  lockstep_private_mutex_lock(&pending_registrations_lock);
  for (int index = 0; index < pending_registration_count; index++) {
    if (pending_registrations[index].source != source) continue;
    wrapper = pending_registrations[index].wrapper;
    pending_registrations[index] = pending_registrations[pending_registration_count - 1];
    __atomic_store_n(&pending_registration_count, pending_registration_count - 1, __ATOMIC_RELEASE);
    break;
  }
  lockstep_private_mutex_unlock(&pending_registrations_lock);
  return wrapper;
}

/// A source whose registration handler the run waits for is resumed: its registration is on its
/// way, and holds virtual time still until the handler has run.
static void registration_resumed(void *object) {
  source_handler_block *wrapper = take_pending_registration(object);
  if (wrapper == NULL) return;
  lockstep_run_context registration = {.outside_token = wrapper->token}, saved;
  lockstep_run_context_swap_in(&registration, lockstep_run_context_outside_token, &saved);
  void *resumed = lockstep_outside_work_begin(NULL, lockstep_outside_async);
  lockstep_run_context_swap_out(&saved, lockstep_run_context_outside_token);
  __atomic_store_n(&wrapper->resumed, resumed, __ATOMIC_RELEASE);
}

static dispatch_object_function next_dispatch_resume;
static dispatch_object_function next_dispatch_activate;

void dispatch_resume(void *object) {
  registration_resumed(object);
  dispatch_object_function next =
    (dispatch_object_function)lockstep_next_definition((void **)&next_dispatch_resume, "dispatch_resume");
  next(object);
}

void dispatch_activate(void *object) {
  registration_resumed(object);
  dispatch_object_function next = (dispatch_object_function)lockstep_next_definition(
    (void **)&next_dispatch_activate, "dispatch_activate");
  next(object);
}

/// `handler` wrapped as outside work of the calling thread's run; `NULL` when it is not.
static void *source_handler(void *handler, bool registration) {
  if (handler == NULL || !lockstep_outside_work_possible()) return NULL;
  lockstep_global_block_head head;
  if (!lockstep_make_global_block(&head, run_source_handler)) return NULL;
  void *token = lockstep_outside_work_begin(
    NULL, registration ? lockstep_outside_source_registration : lockstep_outside_source_owner);
  if (token == NULL) return NULL;
  source_handler_block *wrapper = malloc(sizeof *wrapper);
  void *copy = wrapper != NULL ? lockstep_copy_block(handler) : NULL;
  if (copy == NULL) {
    free(wrapper);
    if (registration) lockstep_outside_work_end(token);
    return NULL;
  }
  *wrapper = (source_handler_block){
    .head = head,
    .handler = copy,
    .token = token,
    .registration = registration,
    .resumed = NULL,
  };
  return wrapper;
}

void dispatch_source_set_registration_handler(void *source, void *handler) {
  void *wrapped = source_handler(handler, true);
  if (wrapped != NULL) note_pending_registration(source, wrapped);
  source_handler_function next = (source_handler_function)lockstep_next_definition(
    (void **)&next_set_registration_handler, "dispatch_source_set_registration_handler");
  next(source, wrapped != NULL ? wrapped : handler);
}

void dispatch_source_set_event_handler(void *source, void *handler) {
  void *wrapped = source_handler(handler, false);
  source_handler_function next = (source_handler_function)lockstep_next_definition(
    (void **)&next_set_event_handler, "dispatch_source_set_event_handler");
  next(source, wrapped != NULL ? wrapped : handler);
}

// Dispatch timer sources: `DispatchSourceTimer.schedule(deadline:repeating:)` reaches
// `dispatch_source_set_timer`. Set from a run's job (or its outside work), the timer is the run's:
// libdispatch's timer is disarmed, and the run re-arms it to fire at once each time its deadline
// comes in virtual time (`lockstep_timer_fire_now`), until the source is cancelled.

typedef void (*set_timer_function)(void *source, uint64_t start, uint64_t interval, uint64_t leeway);
static set_timer_function next_set_timer;
static dispatch_object_function next_source_cancel;
static lockstep_timer_observer timer_observer;
static lockstep_timer_cancel_observer timer_cancel_observer;

static set_timer_function set_timer(void) {
  return (set_timer_function)lockstep_next_definition((void **)&next_set_timer, "dispatch_source_set_timer");
}

void dispatch_source_set_timer(void *source, uint64_t start, uint64_t interval, uint64_t leeway) {
  if (__builtin_expect(lockstep_outside_work_possible(), 0)) {
    lockstep_timer_observer observer = __atomic_load_n(&timer_observer, __ATOMIC_ACQUIRE);
    int64_t delay = start == ~0ull ? -1 : lockstep_dispatch_time_remaining(start);
    void *run = lockstep_current_run();
    if (observer != NULL && delay >= 0
      && observer(run, lockstep_current_outside_token(), source, delay,
        interval == ~0ull ? -1 : (int64_t)interval))
    {
      set_timer()(source, ~0ull, interval, leeway);  // disarmed: the run fires it
      return;
    }
  }
  set_timer()(source, start, interval, leeway);
}

void dispatch_source_cancel(void *source) {
  lockstep_timer_cancel_observer observer = __atomic_load_n(&timer_cancel_observer, __ATOMIC_ACQUIRE);
  if (observer != NULL) observer(source);
  dispatch_object_function next =
    (dispatch_object_function)lockstep_next_definition((void **)&next_source_cancel, "dispatch_source_cancel");
  next(source);
}

void lockstep_timer_fire_now(void *source) { set_timer()(source, 0, ~0ull, 0); }

void lockstep_timer_restore(void *source, int64_t delay, int64_t interval) {
  // An uptime deadline on the real monotonic clock, whatever clocks the calling thread reads.
  int64_t now = lockstep_real_clock_nanoseconds(CLOCK_MONOTONIC);
  uint64_t start = (uint64_t)(now + (delay > 0 ? delay : 0));
  set_timer()(source, start, interval < 0 ? ~0ull : (uint64_t)interval, 0);
}

void lockstep_timer_set_observer(lockstep_timer_observer observer, lockstep_timer_cancel_observer cancel) {
  __atomic_store_n(&timer_cancel_observer, cancel, __ATOMIC_RELEASE);
  __atomic_store_n(&timer_observer, observer, __ATOMIC_RELEASE);
}

#else

void lockstep_timer_fire_now(void *source) { (void)source; }
void lockstep_timer_restore(void *source, int64_t delay, int64_t interval) {
  (void)source;
  (void)delay;
  (void)interval;
}
void lockstep_timer_set_observer(lockstep_timer_observer observer, lockstep_timer_cancel_observer cancel) {
  (void)observer;
  (void)cancel;
}

#endif
