// Which exploration's crash trail a thread records into (CrashReport.swift): explorations proceed
// side by side, and a crash handler, which runs on the crashing thread, writes the trail of the
// schedule that thread was running — or, on a thread that runs none, the schedule begun last. It
// stands in for no call and tells a run nothing. Every platform (plain C thread-local storage).
#include "LockstepInterposition.h"

static __thread void *current_trail;
static void *last_trail;

void *lockstep_crash_trail_enter(void *trail) {
  void *previous = current_trail;
  current_trail = trail;
  return previous;
}

void *lockstep_crash_trail_current(void) { return current_trail; }

void lockstep_crash_trail_set_last(void *trail) { __atomic_store_n(&last_trail, trail, __ATOMIC_RELEASE); }

void *lockstep_crash_trail_last(void) { return __atomic_load_n(&last_trail, __ATOMIC_ACQUIRE); }
