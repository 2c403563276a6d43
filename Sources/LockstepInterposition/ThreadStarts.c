// Threads a deterministic run's jobs start, or its outside work starts (`Thread`,
// `Thread.detachNewThread`, `pthread_create`): outside work of the run from its start until its
// start routine returns, or until it resumes the run (see `OutsideWorkTracking`). A thread keeps
// the run from reporting a deadlock, and virtual time from moving except while it waits where
// Lockstep sees it (`BlockingWaits.c`). A thread XCTest starts (`fulfillment(of:timeout:)` waits
// on one) is the run's waiter instead (`ExpectationWaits.c`). Linux, where the executable's
// definition comes first; elsewhere nothing is defined and threads go unseen.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <pthread.h>
  #include <stdlib.h>
  #include <string.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/NextDefinition.h"
#include "Internal/OutsideWork.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef int (*pthread_create_function)(
  pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument);

static pthread_create_function next_pthread_create;

/// A thread's start routine and argument, and the token of the outside work it is.
typedef struct {
  void *(*start)(void *);
  void *argument;
  void *token;
  bool waits_for_expectations;
} started_thread;

static void end_thread_work(void *token) {
  lockstep_expectation_waiter_leave();
  lockstep_outside_work_end(token);
}

static void *run_started_thread(void *context) {
  started_thread started = *(started_thread *)context;
  free(context);
  lockstep_run_context saved;
  lockstep_outside_work_enter(started.token, &saved);
  if (started.waits_for_expectations) lockstep_expectation_waiter_enter(started.token);
  void *result;
  // Ends the work however the thread ends: returning, `pthread_exit`, cancellation.
  pthread_cleanup_push(end_thread_work, started.token);
  result = started.start(started.argument);
  pthread_cleanup_pop(1);
  lockstep_run_context_swap_out(&saved, LOCKSTEP_OUTSIDE_WORK_FIELDS);
  return result;
}

/// Whether the code that starts a thread is libdispatch's own: a worker thread of its pool, made
/// while a run's job queued work, belongs to no run.
static bool started_by_dispatch(void *caller) {
  Dl_info info;
  return dladdr(caller, &info) != 0 && info.dli_fname != NULL
    && strstr(info.dli_fname, "libdispatch") != NULL;
}

int pthread_create(
  pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument)
{
  pthread_create_function next =
    (pthread_create_function)lockstep_next_definition((void **)&next_pthread_create, "pthread_create");
  if (__builtin_expect(!lockstep_outside_work_possible(), 1)) {
    return next(thread, attributes, start, argument);
  }
  if (started_by_dispatch(__builtin_return_address(0))) {
    return next(thread, attributes, start, argument);
  }
  bool for_xctest = lockstep_called_from_xctest();
  void *token = lockstep_outside_work_begin(
    NULL, for_xctest ? lockstep_outside_expectation_waiter : lockstep_outside_thread);
  if (token == NULL) return next(thread, attributes, start, argument);
  started_thread *started = malloc(sizeof *started);
  if (started == NULL) {
    lockstep_outside_work_end(token);
    return next(thread, attributes, start, argument);
  }
  *started = (started_thread){
    .start = start, .argument = argument, .token = token, .waits_for_expectations = for_xctest};
  int result = next(thread, attributes, run_started_thread, started);
  if (result != 0) {
    free(started);
    lockstep_outside_work_end(token);
  }
  return result;
}

#endif
