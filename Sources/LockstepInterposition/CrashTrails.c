// The exploration whose schedule began last, for a crash on a thread that runs none: explorations
// proceed side by side, and a crash handler, which runs on the crashing thread, writes the trail
// of the schedule that thread was running (its run context's, `RunContext.h`) — or, on a thread
// that runs none, the schedule begun last (CrashReport.swift). It stands in for no call and tells a
// run nothing. Every platform.
#include "LockstepInterposition.h"

static void *last_trail;

void lockstep_crash_trail_set_last(void *trail) { __atomic_store_n(&last_trail, trail, __ATOMIC_RELEASE); }

void *lockstep_crash_trail_last(void) { return __atomic_load_n(&last_trail, __ATOMIC_ACQUIRE); }
