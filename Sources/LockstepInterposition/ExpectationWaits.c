// Run loops inside a deterministic run (Linux). A synchronous wait of a run's job —
// XCTest's `waitForExpectations(timeout:)`, `wait(for:timeout:)`, `XCTWaiter().wait`, a test
// helper's `RunLoop.current.run(until:)`, wherever it is called from — runs its thread's run loop
// (`CFRunLoopRunInMode`) in slices until the time it read from `Date` is over or the run loop is
// stopped (`CFRunLoopStop`, which XCTest calls when the expectations are fulfilled). Each slice is
// offered to the run (`BlockingWaits.c`), which parks the job for the slice's time in virtual time
// or until the loop is stopped, and drains on meanwhile (a slice on the main thread serves the
// run's main-actor work, as the main run loop serves the main queue); `_CFRunLoopFinished` says a
// run's job's loop is never finished, so that `RunLoop.run(mode:before:)` makes the call even where
// the loop has no sources. XCTest's async `fulfillment(of:timeout:)` waits on a thread of its own:
// a thread a run's job starts from XCTest's code (`ThreadStarts.c`) is the run's waiter, which
// reads the run's virtual clocks, and each of its slices rests in the run instead (see the Swift
// side, `ExpectationWaits.swift`). Everywhere else the calls go on to Foundation's CoreFoundation
// unchanged; Apple platforms bind them to their library, and nothing is defined.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <execinfo.h>
  #include <string.h>
  #include <unistd.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/NextDefinition.h"
#include "Internal/OutsideWork.h"
#include "LockstepInterposition.h"

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
static lockstep_run_loop_stop_observer stop_observer;
/// How many run-loop waits runs take now: stops are told to a run only while one is.
static long waits_taken;

/// `kCFRunLoopRunFinished`, `kCFRunLoopRunStopped` and `kCFRunLoopRunTimedOut`.
#define RUN_LOOP_FINISHED 1
#define RUN_LOOP_STOPPED 2
#define RUN_LOOP_TIMED_OUT 3

/// The calling thread's run loop.
static void *current_run_loop(void) {
  current_run_loop_function current = (current_run_loop_function)lockstep_next_definition(
    (void **)&next_current, "CFRunLoopGetCurrent");
  return current != NULL ? current() : NULL;
}

int32_t CFRunLoopRunInMode(const void *mode, double seconds, unsigned char returnAfterSourceHandled) {
  run_in_mode_function next =
    (run_in_mode_function)lockstep_next_definition((void **)&next_run_in_mode, "CFRunLoopRunInMode");
  void *token = lockstep_thread.context.waiter_token;
  if (__builtin_expect(token == NULL, 1)) {
    if (__builtin_expect(lockstep_current_run() != NULL, 0) && seconds > 0) {
      // A run's job waits in its run loop: parked in the run's virtual time.
      int64_t nanoseconds = seconds > 1e9 ? -1 : (int64_t)(seconds * 1e9);
      long parked = lockstep_run_loop_wait_in_run(current_run_loop(), nanoseconds);
      if (parked >= 0) return parked == 0 ? RUN_LOOP_STOPPED : RUN_LOOP_TIMED_OUT;
      // CoreFoundation's own deadline is read in real time, as the kernel keeps it.
      lockstep_run_context real = {.clocks = NULL}, saved;
      lockstep_run_context_swap_in(&real, lockstep_run_context_clocks, &saved);
      int32_t result = next(mode, seconds, returnAfterSourceHandled);
      lockstep_run_context_swap_out(&saved, lockstep_run_context_clocks);
      // The run is over (the wait was refused) and the loop has nothing to run: a caller that
      // loops until its deadline must not spin while real time catches up.
      if (result == RUN_LOOP_FINISHED) usleep((useconds_t)(seconds < 0.01 ? seconds * 1e6 : 10000));
      return result;
    }
    return next(mode, seconds, returnAfterSourceHandled);
  }
  if (!(seconds > 0) || seconds > 1e9) return next(mode, seconds, returnAfterSourceHandled);
  lockstep_run_loop_rest rest = __atomic_load_n(&run_loop_rest, __ATOMIC_ACQUIRE);
  void *run_loop = current_run_loop();
  int32_t result = rest != NULL && run_loop != NULL ? rest(token, (int64_t)(seconds * 1e9), run_loop) : -1;
  if (result >= 0) return result;
  // The run is over: real time from now on.
  lockstep_expectation_waiter_leave();
  return next(mode, seconds, returnAfterSourceHandled);
}

unsigned char _CFRunLoopFinished(void *run_loop, const void *mode) {
  finished_function next =
    (finished_function)lockstep_next_definition((void **)&next_finished, "_CFRunLoopFinished");
  // A loop without sources returns at once, and its caller would spin on a clock that stands
  // still: in a run (a job's wait, or XCTest's waiter) the wait is the run's (above).
  if (__builtin_expect(lockstep_thread.context.waiter_token != NULL, 0)) return 0;
  if (__builtin_expect(lockstep_current_run() != NULL, 0)) return 0;
  return next(run_loop, mode);
}

void CFRunLoopStop(void *run_loop) {
  if (__builtin_expect(__atomic_load_n(&waits_taken, __ATOMIC_ACQUIRE) > 0, 0)) {
    void *run = lockstep_current_run();
    void *token = run == NULL ? lockstep_current_outside_token() : NULL;
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
  lockstep_virtual_clocks *clocks = lockstep_outside_work_clocks(token);
  if (clocks == NULL) return;
  // Left when the thread ends, or as soon as the run is over (above): not a scope, so nothing is
  // kept to go back to.
  lockstep_run_context waiter = {.waiter_token = token, .clocks = clocks}, saved;
  lockstep_run_context_swap_in(
    &waiter, lockstep_run_context_waiter_token | lockstep_run_context_clocks, &saved);
}

void lockstep_expectation_waiter_leave(void) {
  if (lockstep_thread.context.waiter_token == NULL) return;
  lockstep_run_context none = {.waiter_token = NULL}, saved;
  lockstep_run_context_swap_in(
    &none, lockstep_run_context_waiter_token | lockstep_run_context_clocks, &saved);
}

void lockstep_expectation_waits_set_observer(
  lockstep_run_loop_rest rest, lockstep_run_loop_stop_observer stopped)
{
  __atomic_store_n(&stop_observer, stopped, __ATOMIC_RELEASE);
  __atomic_store_n(&run_loop_rest, rest, __ATOMIC_RELEASE);
}

void lockstep_run_loop_waits_taken(long change) {
  __atomic_add_fetch(&waits_taken, change, __ATOMIC_ACQ_REL);
}

#else

void lockstep_expectation_waits_set_observer(
  lockstep_run_loop_rest rest, lockstep_run_loop_stop_observer stopped)
{
  (void)rest;
  (void)stopped;
}
void lockstep_run_loop_waits_taken(long change) { (void)change; }
bool lockstep_called_from_xctest(void) { return false; }
void lockstep_expectation_waiter_enter(void *token) { (void)token; }
void lockstep_expectation_waiter_leave(void) {}

#endif
