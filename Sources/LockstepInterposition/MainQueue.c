// Stands in for nothing itself: the main-queue half of `dispatch_async` and `dispatch_after`
// (`OutsideBlocks.c` defines them). While one of a run's jobs runs on the calling thread,
// `DispatchQueue.main.async` and `asyncAfter` hand their block to the run, which makes it a
// main-actor task of its own, in the run's order and, for `asyncAfter`, after its delay in the
// run's time; a block outside work of a run queues for the main queue is the run's too, so that
// the main thread, waiting in the run, runs it. Linux, where the executable's definitions of those
// calls come first; Apple platforms bind each call to its library, and nothing is handed over.
//
// This is interposition, not API: Lockstep checks it once per process (see
// `lockstep_main_queue_probe_end`) and hands nothing to runs when it does not hold.
#include "Internal/RunContext.h"
#include "Internal/DispatchObjects.h"
#include "Internal/MainQueue.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

static lockstep_main_queue_observer main_queue_observer;
static lockstep_main_queue_outside_observer main_queue_outside_observer;

/// How many main-queue blocks the probe saw on the calling thread.
static __thread int main_queue_probe_seen;

bool lockstep_main_queue_hand_off(void *queue, void *block, bool delayed, int64_t delay) {
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1)) {
    if (__builtin_expect(lockstep_probing(lockstep_probing_main_queue), 0)) {
      if (queue == lockstep_dispatch_main_queue() && queue != NULL) main_queue_probe_seen += 1;
      return false;
    }
    // Outside work of a run (a block on another queue) queues for the main queue: the run takes
    // the block as its own, so that the main thread, waiting in the run, runs it.
    void *token = lockstep_current_outside_token();
    if (__builtin_expect(token == NULL, 1) || queue != lockstep_dispatch_main_queue() || queue == NULL) {
      return false;
    }
    lockstep_main_queue_outside_observer outside =
      __atomic_load_n(&main_queue_outside_observer, __ATOMIC_ACQUIRE);
    void *copy = outside != NULL ? lockstep_copy_block(block) : NULL;
    if (copy == NULL) return false;
    if (outside(token, copy, delayed, delay)) return true;
    lockstep_release_block(copy);
    return false;
  }
  if (queue != lockstep_dispatch_main_queue() || queue == NULL) return false;
  lockstep_main_queue_observer observer = __atomic_load_n(&main_queue_observer, __ATOMIC_ACQUIRE);
  if (observer == NULL) return false;
  void *copy = lockstep_copy_block(block);
  if (copy == NULL) return false;
  if (observer(run, copy, delayed, delay)) return true;
  lockstep_release_block(copy);
  return false;
}

bool lockstep_main_queue_interposable(void) { return true; }

void lockstep_main_queue_run_block(void *block) {
  ((lockstep_block_layout *)block)->invoke(block);
  lockstep_release_block(block);
}

void lockstep_main_queue_set_outside_observer(lockstep_main_queue_outside_observer observer) {
  __atomic_store_n(&main_queue_outside_observer, observer, __ATOMIC_RELEASE);
}

void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer) {
  __atomic_store_n(&main_queue_observer, observer, __ATOMIC_RELEASE);
}

/// What the main-queue probe sets: no run's, probing.
static const lockstep_run_context main_queue_probe = {.run = NULL, .probes = lockstep_probing_main_queue};

void lockstep_main_queue_probe_begin(lockstep_run_context *saved) {
  main_queue_probe_seen = 0;
  lockstep_run_context_swap_in(
    &main_queue_probe, lockstep_run_context_run | lockstep_run_context_probes, saved);
}

int lockstep_main_queue_probe_end(const lockstep_run_context *saved) {
  lockstep_run_context_swap_out(saved, lockstep_run_context_run | lockstep_run_context_probes);
  return main_queue_probe_seen;
}

#else

bool lockstep_main_queue_interposable(void) { return false; }
void lockstep_main_queue_run_block(void *block) { (void)block; }
void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer) { (void)observer; }
void lockstep_main_queue_set_outside_observer(lockstep_main_queue_outside_observer observer) {
  (void)observer;
}
void lockstep_main_queue_probe_begin(lockstep_run_context *saved) { (void)saved; }
int lockstep_main_queue_probe_end(const lockstep_run_context *saved) {
  (void)saved;
  return 0;
}

#endif
