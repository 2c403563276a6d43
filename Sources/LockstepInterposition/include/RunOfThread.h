// What the calling thread works for (`RunOfThread.c`): the run whose jobs it runs, or the outside
// work of a run it runs. Every stand-in that tells a run of a call asks this first.
#ifndef LOCKSTEP_RUN_OF_THREAD_H
#define LOCKSTEP_RUN_OF_THREAD_H

/// Makes the calling thread run the jobs of `run` (`NULL`: of no run): its main-queue blocks,
/// blocking waits, lock calls and run loops go to the run; returns the run it had.
void *lockstep_current_run_enter(void *run);

/// Makes the calling thread run the outside work of `token` (`NULL`: none); returns the token it
/// had.
void *lockstep_outside_work_enter(void *token);

/// The token of the outside work the calling thread runs; `NULL` when it runs none.
void *lockstep_outside_work_current(void);

#endif
