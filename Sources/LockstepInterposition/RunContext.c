// What each thread does for which run, in one record (`RunContext.h`): the run whose jobs it
// drains (set by the run around each stretch of its draining), the run its stand-ins, task
// creations and actor switches tell, the outside work of a run it runs (set by the stand-ins around
// a block or a thread a run's work started), the clocks it reads, the crash trail it writes, the
// probes that run on it. Below every stand-in, and it tells the run nothing itself. Every platform
// (plain C thread-local storage); only Linux's stand-ins read more than the drained run and the
// crash trail.
#include "Internal/RunContext.h"

__thread lockstep_thread_context lockstep_thread LOCKSTEP_INITIAL_EXEC;

void lockstep_run_context_enter(
  const lockstep_run_context *next, lockstep_run_context_fields fields, lockstep_run_context *saved) {
  lockstep_run_context_swap_in(next, fields, saved);
}

void lockstep_run_context_leave(const lockstep_run_context *saved, lockstep_run_context_fields fields) {
  lockstep_run_context_swap_out(saved, fields);
}

const lockstep_run_context *lockstep_run_context_current(void) { return &lockstep_thread.context; }

lockstep_virtual_clocks *lockstep_run_context_swap_clocks(lockstep_virtual_clocks *clocks) {
  lockstep_virtual_clocks *previous = lockstep_thread.context.clocks;
  lockstep_thread.context.clocks = clocks;
  return previous;
}
