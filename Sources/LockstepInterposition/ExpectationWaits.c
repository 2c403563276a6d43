// XCTest's waits for expectations inside a deterministic run (Linux). `fulfillment(of:timeout:)`
// waits on a thread of its own, in a loop that reads `Date` and runs the thread's run loop for a
// slice of the time left (a loop without sources, which returns at once: the wait spins); a
// fulfilment stops the run loop (`CFRunLoopStop`). A thread a run's job starts from XCTest's code
// (`ThreadStarts.c`) is the run's waiter: it reads the run's virtual clocks, and each slice
// (`CFRunLoopRunInMode`) rests in the run instead, which lets virtual time move meanwhile and ends
// the slice when its time is over in virtual time, or when a stop comes (see the Swift side,
// `ExpectationWaits.swift`). Everywhere else the calls go on to Foundation's CoreFoundation
// unchanged; Apple platforms bind them to their library, and nothing is defined.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <execinfo.h>
  #include <string.h>
#endif

#include "LockstepInterposition.h"
#include "NextDefinition.h"

#if defined(__linux__)

typedef int32_t (*run_in_mode_function)(const void *mode, double seconds, unsigned char returnAfterSourceHandled);
typedef unsigned char (*finished_function)(void *run_loop, const void *mode);
typedef void (*run_loop_function)(void *run_loop);
typedef void *(*current_run_loop_function)(void);

static run_in_mode_function next_run_in_mode;
static finished_function next_finished;
static run_loop_function next_stop;
static current_run_loop_function next_current;
static lockstep_run_loop_rest run_loop_rest;
static lockstep_waiter_clocks_function waiter_clocks;
static lockstep_run_loop_stop_observer stop_observer;
/// How many run-loop waits runs take now: stops are told to a run only while one is.
static long waits_taken;

/// The outside-work token of the run whose waiter the calling thread is; `NULL` elsewhere.
static __thread void *waiter_token;

/// `kCFRunLoopRunTimedOut`.
#define RUN_LOOP_TIMED_OUT 3

/// Whether the calling thread's run loop has no sources in `mode` (CoreFoundation's own answer).
static bool run_loop_without_sources(const void *mode) {
  finished_function finished =
    (finished_function)lockstep_next_definition((void **)&next_finished, "_CFRunLoopFinished");
  current_run_loop_function current = (current_run_loop_function)lockstep_next_definition(
    (void **)&next_current, "CFRunLoopGetCurrent");
  return finished != NULL && current != NULL && finished(current(), mode) != 0;
}

int32_t CFRunLoopRunInMode(const void *mode, double seconds, unsigned char returnAfterSourceHandled) {
  run_in_mode_function next =
    (run_in_mode_function)lockstep_next_definition((void **)&next_run_in_mode, "CFRunLoopRunInMode");
  void *token = waiter_token;
  if (__builtin_expect(token == NULL, 1) || !(seconds > 0) || seconds > 1e9) {
    if (__builtin_expect(lockstep_main_queue_current_run() != NULL, 0) && seconds > 0 && seconds <= 1e9
      && run_loop_without_sources(mode) && lockstep_sleep_in_run((int64_t)(seconds * 1e9)))
    {
      // A run's job runs a run loop without sources (XCTest's `wait(for:timeout:)`): it would
      // return at once, and its caller spin on a clock that stands still. It sleeps its time in
      // the run's virtual time instead, parked.
      return RUN_LOOP_TIMED_OUT;
    }
    return next(mode, seconds, returnAfterSourceHandled);
  }
  lockstep_run_loop_rest rest = __atomic_load_n(&run_loop_rest, __ATOMIC_ACQUIRE);
  current_run_loop_function current = (current_run_loop_function)lockstep_next_definition(
    (void **)&next_current, "CFRunLoopGetCurrent");
  int32_t result = rest != NULL && current != NULL ? rest(token, (int64_t)(seconds * 1e9), current()) : -1;
  if (result >= 0) return result;
  // The run is over: real time from now on.
  lockstep_expectation_waiter_leave();
  return next(mode, seconds, returnAfterSourceHandled);
}

unsigned char _CFRunLoopFinished(void *run_loop, const void *mode) {
  finished_function next =
    (finished_function)lockstep_next_definition((void **)&next_finished, "_CFRunLoopFinished");
  // XCTest's waiter runs a run loop without sources, which returns at once: in a run, its wait
  // is the run's (`CFRunLoopRunInMode` above), as is XCTest's wait in a run's job.
  if (__builtin_expect(waiter_token != NULL, 0)) return 0;
  unsigned char finished = next(run_loop, mode);
  if (__builtin_expect(finished && lockstep_main_queue_current_run() != NULL, 0)
    && lockstep_called_from_xctest())
  {
    return 0;
  }
  return finished;
}

void CFRunLoopStop(void *run_loop) {
  if (__builtin_expect(__atomic_load_n(&waits_taken, __ATOMIC_ACQUIRE) > 0, 0)) {
    void *run = lockstep_main_queue_current_run();
    void *token = run == NULL ? lockstep_outside_work_current() : NULL;
    lockstep_run_loop_stop_observer observer = __atomic_load_n(&stop_observer, __ATOMIC_ACQUIRE);
    // From any thread: a stop made where no run context is set (a job parked in `queue.sync`, a
    // thread outside the run) ends the rest too; only a job's own stop waits for its step to end.
    if (observer != NULL) observer(run, token, run_loop);
  }
  run_loop_function stop = (run_loop_function)lockstep_next_definition((void **)&next_stop, "CFRunLoopStop");
  if (stop != NULL) stop(run_loop);
}

bool lockstep_called_from_xctest(void) {
  // The first caller outside Lockstep's stand-ins and Foundation decides: XCTest's waiter calls
  // Foundation (`Thread.detachNewThread`, `RunLoop.run`) itself, whereas a test that XCTest runs
  // has XCTest's frames only further down its stack. The top frames are this image's (the
  // stand-in, and a sanitizer's interceptors where one is linked in).
  void *frames[24];
  int count = backtrace(frames, 24);
  Dl_info own;
  if (dladdr((void *)lockstep_called_from_xctest, &own) == 0) return false;
  int index = 0;
  Dl_info info;
  while (index < count && dladdr(frames[index], &info) != 0 && info.dli_fbase == own.dli_fbase) index++;
  for (; index < count; index++) {
    if (dladdr(frames[index], &info) == 0 || info.dli_fname == NULL) return false;
    if (strstr(info.dli_fname, "libFoundation") != NULL) continue;
    return strstr(info.dli_fname, "libXCTest") != NULL;
  }
  return false;
}

void lockstep_expectation_waiter_enter(void *token) {
  lockstep_waiter_clocks_function clocks_of = __atomic_load_n(&waiter_clocks, __ATOMIC_ACQUIRE);
  lockstep_virtual_clocks *clocks = clocks_of == NULL ? NULL : clocks_of(token);
  if (clocks == NULL) return;
  waiter_token = token;
  lockstep_virtual_clocks_enter(clocks);
}

void lockstep_expectation_waiter_leave(void) {
  if (waiter_token == NULL) return;
  waiter_token = NULL;
  lockstep_virtual_clocks_enter(NULL);
}

void lockstep_expectation_waits_set_observer(
  lockstep_run_loop_rest rest, lockstep_waiter_clocks_function clocks,
  lockstep_run_loop_stop_observer stopped)
{
  __atomic_store_n(&stop_observer, stopped, __ATOMIC_RELEASE);
  __atomic_store_n(&waiter_clocks, clocks, __ATOMIC_RELEASE);
  __atomic_store_n(&run_loop_rest, rest, __ATOMIC_RELEASE);
}

void lockstep_run_loop_waits_taken(long change) {
  __atomic_add_fetch(&waits_taken, change, __ATOMIC_ACQ_REL);
}

#else

void lockstep_expectation_waits_set_observer(
  lockstep_run_loop_rest rest, lockstep_waiter_clocks_function clocks,
  lockstep_run_loop_stop_observer stopped)
{
  (void)rest;
  (void)clocks;
  (void)stopped;
}
void lockstep_run_loop_waits_taken(long change) { (void)change; }
bool lockstep_called_from_xctest(void) { return false; }
void lockstep_expectation_waiter_enter(void *token) { (void)token; }
void lockstep_expectation_waiter_leave(void) {}

#endif
