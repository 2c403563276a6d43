// What the blocking waits (`BlockingWaits.c`) offer the other stand-ins that see a wait or a
// signal (`ConditionCalls.c`): telling runs of outside work's waits, of signals and of the wait
// objects their work creates. Private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_OUTSIDE_WAITS_H
#define LOCKSTEP_INTERNAL_OUTSIDE_WAITS_H

#include <stdbool.h>

#if defined(__linux__)

/// Tells the run of outside work `token` that it is about to wait on `object` (by `kind`, one of
/// the `lockstep_blocking_wait_*` constants); whether the run took the wait, which the caller then
/// ends with `lockstep_outside_wait_ends` once it returned.
bool lockstep_outside_wait_begins(void *token, void *object, int kind);

/// Tells the run of outside work `token` that its wait on `object` returned.
void lockstep_outside_wait_ends(void *token, void *object, int kind);

/// Tells the run of the calling thread's job or outside work, while a wait is told to a run, that
/// `object` was signalled (by `kind`).
void lockstep_blocking_waits_tell_signal(void *object, int kind);

/// Tells the run of the calling thread's job or outside work that it created `object`: a wait on
/// it is durably blocked, as a wait on anything else is not. Returns `object`.
void *lockstep_blocking_waits_tell_created(void *object);

#endif

#endif
