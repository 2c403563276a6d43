// The calling thread's run context, read and entered inline by the stand-ins (`RunContext.c`
// defines it): private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_RUN_CONTEXT_H
#define LOCKSTEP_INTERNAL_RUN_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "../include/RunContext.h"

/// How many of the last default actors a thread's run claimed it remembers (`TaskSwitch.c`).
#define LOCKSTEP_CLAIMED_RECENTLY 4

/// A thread's run context, and what belongs to its claiming run: the actors told for it lately, so
/// that a task that goes back and forth between its actor and the generic executor costs a
/// comparison per switch. Forgotten whenever the claiming run is entered or left.
typedef struct lockstep_thread_context {
  lockstep_run_context context;
  const void *claimed_recently[LOCKSTEP_CLAIMED_RECENTLY];
  unsigned claimed_next;
} lockstep_thread_context;

#if defined(__linux__)
  /// Initial-exec on Linux: a direct thread-pointer access, no `__tls_get_addr` call, on every
  /// clock read and every stand-in's call (the object is part of the test executable, or of a
  /// library loaded with it).
  #define LOCKSTEP_INITIAL_EXEC __attribute__((tls_model("initial-exec")))
#else
  #define LOCKSTEP_INITIAL_EXEC
#endif

/// The calling thread's run context (the only thread-local that names a run).
extern __thread lockstep_thread_context lockstep_thread LOCKSTEP_INITIAL_EXEC;

/// Forgets the actors told for the claiming run: it is entered or left.
__attribute__((always_inline)) static inline void lockstep_forget_claimed(void) {
  for (int index = 0; index < LOCKSTEP_CLAIMED_RECENTLY; index++) lockstep_thread.claimed_recently[index] = NULL;
}

/// `lockstep_run_context_enter`, inline: a constant `fields` leaves only its own stores.
__attribute__((always_inline)) static inline void lockstep_run_context_swap_in(
  const lockstep_run_context *next, unsigned fields, lockstep_run_context *saved) {
  lockstep_run_context *here = &lockstep_thread.context;
#define LOCKSTEP_ENTER(bit, field) \
  if (fields & bit) {              \
    saved->field = here->field;    \
    here->field = next->field;     \
  }
  LOCKSTEP_ENTER(lockstep_run_context_drained_run, drained_run)
  LOCKSTEP_ENTER(lockstep_run_context_run, run)
  LOCKSTEP_ENTER(lockstep_run_context_creation_run, creation_run)
  LOCKSTEP_ENTER(lockstep_run_context_claim_run, claim_run)
  LOCKSTEP_ENTER(lockstep_run_context_outside_token, outside_token)
  LOCKSTEP_ENTER(lockstep_run_context_waiter_token, waiter_token)
  LOCKSTEP_ENTER(lockstep_run_context_clocks, clocks)
  LOCKSTEP_ENTER(lockstep_run_context_crash_trail, crash_trail)
  LOCKSTEP_ENTER(lockstep_run_context_probes, probes)
#undef LOCKSTEP_ENTER
  if (fields & lockstep_run_context_claim_run) lockstep_forget_claimed();
}

/// `lockstep_run_context_leave`, inline.
__attribute__((always_inline)) static inline void lockstep_run_context_swap_out(
  const lockstep_run_context *saved, unsigned fields) {
  lockstep_run_context *here = &lockstep_thread.context;
#define LOCKSTEP_LEAVE(bit, field) \
  if (fields & bit) here->field = saved->field;
  LOCKSTEP_LEAVE(lockstep_run_context_drained_run, drained_run)
  LOCKSTEP_LEAVE(lockstep_run_context_run, run)
  LOCKSTEP_LEAVE(lockstep_run_context_creation_run, creation_run)
  LOCKSTEP_LEAVE(lockstep_run_context_claim_run, claim_run)
  LOCKSTEP_LEAVE(lockstep_run_context_outside_token, outside_token)
  LOCKSTEP_LEAVE(lockstep_run_context_waiter_token, waiter_token)
  LOCKSTEP_LEAVE(lockstep_run_context_clocks, clocks)
  LOCKSTEP_LEAVE(lockstep_run_context_crash_trail, crash_trail)
  LOCKSTEP_LEAVE(lockstep_run_context_probes, probes)
#undef LOCKSTEP_LEAVE
  if (fields & lockstep_run_context_claim_run) lockstep_forget_claimed();
}

/// The run whose jobs the calling thread runs, as the stand-ins see it; `NULL` while it runs none.
static inline void *lockstep_current_run(void) { return lockstep_thread.context.run; }

/// The outside work of a run the calling thread runs (its token); `NULL` when it runs none.
static inline void *lockstep_current_outside_token(void) { return lockstep_thread.context.outside_token; }

/// Whether the calling thread runs a run's job or its outside work: what it starts may be outside
/// work.
static inline bool lockstep_outside_work_possible(void) {
  return lockstep_thread.context.run != NULL || lockstep_thread.context.outside_token != NULL;
}

/// Whether `probe` (`lockstep_probing_main_queue`, ...) runs on the calling thread.
static inline bool lockstep_probing(unsigned probe) { return (lockstep_thread.context.probes & probe) != 0; }

#endif
