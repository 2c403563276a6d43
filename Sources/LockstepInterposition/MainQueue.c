// Blocks a deterministic run's jobs hand to the main queue: while one of a run's jobs runs on the
// run's thread, `DispatchQueue.main.async` and `asyncAfter` (which reach libdispatch's exported
// `dispatch_async` and `dispatch_after`) hand their block to the run, which makes it a main-actor
// task of its own, in the run's order and, for `asyncAfter`, after its delay in the run's time.
// Everywhere else, for every other queue and on every other thread, the call goes on to
// libdispatch unchanged. A definition in the test executable is what those calls reach on Linux:
// the executable's symbol comes first in the dynamic linker's search order. Apple platforms bind
// each call to its library (two-level namespaces), so there nothing is defined here.
//
// This is interposition, not API: Lockstep checks it once per process (see
// `lockstep_main_queue_probe_end`) and hands nothing to runs when it does not hold.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <time.h>
#endif

#include "LockstepInterposition.h"
#include "NextDefinition.h"

#if defined(__linux__)

typedef void (*dispatch_async_function)(void *queue, void *block);
typedef void *(*block_copy_function)(const void *block);
typedef void (*block_release_function)(const void *block);
typedef void (*dispatch_after_function)(uint64_t when, void *queue, void *block);

static dispatch_async_function next_dispatch_async;
static dispatch_after_function next_dispatch_after;
static block_copy_function block_copy;
static block_release_function block_release;
static void *main_queue;
static lockstep_main_queue_observer main_queue_observer;

/// The run the calling thread's main-queue blocks go to; `NULL` while it runs no run's jobs.
static __thread void *main_queue_context;

/// What the probe saw on the calling thread.
static char main_queue_probe_marker;
static __thread int main_queue_probe_seen;

static void *the_main_queue(void) {
  void *queue = __atomic_load_n(&main_queue, __ATOMIC_ACQUIRE);
  if (__builtin_expect(queue == NULL, 0)) {
    queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
    __atomic_store_n(&main_queue, queue, __ATOMIC_RELEASE);
  }
  return queue;
}

/// Whether the calling thread hands `queue`'s blocks to a run (or to the probe), and does so.
static bool handed_to_run(void *queue, void *block, bool delayed, int64_t delay) {
  void *context = main_queue_context;
  if (__builtin_expect(context == NULL, 1)) return false;
  if (queue != the_main_queue() || queue == NULL) return false;
  if (context == &main_queue_probe_marker) {
    main_queue_probe_seen += 1;
    return false;
  }
  lockstep_main_queue_observer observer = __atomic_load_n(&main_queue_observer, __ATOMIC_ACQUIRE);
  if (observer == NULL) return false;
  block_copy_function copy =
    (block_copy_function)lockstep_next_definition((void **)&block_copy, "_Block_copy");
  if (copy == NULL) return false;
  observer(context, copy(block), delayed, delay);
  return true;
}

/// Nanoseconds from now until `when`, a `dispatch_time_t`, read on the clock it names (on the
/// calling thread: a run's job reads the run's clocks); -1 for "forever".
static int64_t nanoseconds_until(uint64_t when) {
  if (when == ~0ull) return -1;
  if (when == 0) return 0;
  clockid_t clock;
  int64_t deadline;
  if ((int64_t)when < 0) {
    if (when & (1ull << 62)) {
      // Wall time, negated (bits 63 and 62 set).
      clock = CLOCK_REALTIME;
      deadline = -(int64_t)when;
    } else {
      // Monotonic time, counting while the machine sleeps (bit 63 set).
      clock = CLOCK_BOOTTIME;
      deadline = (int64_t)(when & ~(1ull << 63));
    }
  } else {
    // Uptime.
    clock = CLOCK_MONOTONIC;
    deadline = (int64_t)when;
  }
  struct timespec now;
  if (clock_gettime(clock, &now) != 0) return 0;
  int64_t remaining = deadline - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
  return remaining > 0 ? remaining : 0;
}

void dispatch_async(void *queue, void *block) {
  if (handed_to_run(queue, block, false, 0)) return;
  dispatch_async_function next =
    (dispatch_async_function)lockstep_next_definition((void **)&next_dispatch_async, "dispatch_async");
  next(queue, block);
}

void dispatch_after(uint64_t when, void *queue, void *block) {
  if (__builtin_expect(main_queue_context != NULL, 0)) {
    int64_t delay = nanoseconds_until(when);
    if (delay >= 0 && handed_to_run(queue, block, true, delay)) return;
  }
  dispatch_after_function next =
    (dispatch_after_function)lockstep_next_definition((void **)&next_dispatch_after, "dispatch_after");
  next(when, queue, block);
}

bool lockstep_main_queue_interposable(void) { return true; }

/// The head of a block: its `invoke` function takes the block itself.
typedef struct lockstep_block_layout {
  void *isa;
  int flags;
  int reserved;
  void (*invoke)(void *block);
} lockstep_block_layout;

void lockstep_main_queue_run_block(void *block) {
  ((lockstep_block_layout *)block)->invoke(block);
  block_release_function release =
    (block_release_function)lockstep_next_definition((void **)&block_release, "_Block_release");
  if (release) release(block);
}

void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer) {
  __atomic_store_n(&main_queue_observer, observer, __ATOMIC_RELEASE);
}

void *lockstep_main_queue_enter(void *context) {
  void *previous = main_queue_context;
  main_queue_context = context;
  return previous;
}

void *lockstep_main_queue_probe_begin(void) {
  main_queue_probe_seen = 0;
  return lockstep_main_queue_enter(&main_queue_probe_marker);
}

int lockstep_main_queue_probe_end(void *previous) {
  lockstep_main_queue_enter(previous);
  return main_queue_probe_seen;
}

#else

bool lockstep_main_queue_interposable(void) { return false; }
void lockstep_main_queue_run_block(void *block) { (void)block; }
void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer) { (void)observer; }
void *lockstep_main_queue_enter(void *context) { return context; }
void *lockstep_main_queue_probe_begin(void) { return NULL; }
int lockstep_main_queue_probe_end(void *previous) {
  (void)previous;
  return 0;
}

#endif
