// What the outside-work token API offers the Dispatch stand-ins beyond `Dispatch.h`
// (`OutsideWork.c` defines it). Private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_OUTSIDE_WORK_H
#define LOCKSTEP_INTERNAL_OUTSIDE_WORK_H

#include <stdbool.h>
#include <stdint.h>

#include "Clocks.h"
#include "RunContext.h"

/// The virtual clocks outside work `token` reads (its run's), or `NULL` for the real ones.
lockstep_virtual_clocks *lockstep_outside_work_clocks(void *token);

/// The fields outside work enters on the thread that runs it: its token, and its run's clocks.
#define LOCKSTEP_OUTSIDE_WORK_FIELDS (lockstep_run_context_outside_token | lockstep_run_context_clocks)

/// Makes the calling thread run outside work `token` (a block, a source's handler, a thread),
/// reading its run's clocks; left with `lockstep_run_context_swap_out(saved,
/// LOCKSTEP_OUTSIDE_WORK_FIELDS)`.
static inline void lockstep_outside_work_enter(void *token, lockstep_run_context *saved) {
  lockstep_run_context work = {.outside_token = token, .clocks = lockstep_outside_work_clocks(token)};
  lockstep_run_context_swap_in(&work, LOCKSTEP_OUTSIDE_WORK_FIELDS, saved);
}

/// Makes the calling thread, which runs outside work, run `token` instead (the same run's).
static inline void lockstep_outside_work_switch(void *token) {
  lockstep_thread.context.outside_token = token;
  lockstep_thread.context.clocks = lockstep_outside_work_clocks(token);
}

#if defined(__linux__)

/// Whether a run's job queued `block` for `queue` (not the main queue) after `delay`, and the run
/// took it: the run queues it once the delay has passed in its time.
bool lockstep_outside_work_delayed(void *queue, void *block, int64_t delay);

#endif

#endif
