// What the calling thread does for which run (`RunContext.c`): one record per thread, entered and
// left in nested scopes. Every stand-in that tells a run of a call, the clock reads, task creation,
// executor switches and the crash handler read it; Lockstep's Swift code reads it as `RunContext`.
#ifndef LOCKSTEP_RUN_CONTEXT_H
#define LOCKSTEP_RUN_CONTEXT_H

#include "Clocks.h"

/// What the calling thread does for which run. Each field is set by its own scope (see
/// `lockstep_run_context_fields`); `NULL` (0) where the thread does nothing of the kind.
typedef struct lockstep_run_context {
  /// The run whose jobs the thread drains, as Lockstep's Swift code sees it (`DrainingRun`): around
  /// each stretch of draining, and around the creation of the run's body task.
  void *drained_run;
  /// The run the stand-ins tell of the thread's calls — main-queue blocks, blocking waits, lock
  /// calls, run loops, outside work: the drained run, while the main-queue hand-off is in effect.
  void *run;
  /// The run told of the tasks the thread creates (`TaskCreation.c`), while the creation hook is
  /// in effect.
  void *creation_run;
  /// The run that claims the default actors the thread's jobs switch to (`TaskSwitch.c`).
  void *claim_run;
  /// The outside work of a run the thread runs (its token): a block, a source's handler, a thread.
  void *outside_token;
  /// The outside work whose XCTest waiter the thread is (its token), while the run lasts
  /// (`ExpectationWaits.c`).
  void *waiter_token;
  /// The clocks the thread reads; `NULL` for the real ones (`VirtualClocks.c`). Set around each job.
  lockstep_virtual_clocks *clocks;
  /// The crash trail a crash on the thread writes (`CrashReport.swift`).
  void *crash_trail;
  /// The probes that run on the thread (`lockstep_run_context_probes`): they see what the stand-ins
  /// would tell a run, and tell no run anything.
  unsigned probes;
} lockstep_run_context;

/// The fields a scope enters and leaves.
typedef enum __attribute__((flag_enum, enum_extensibility(open))) lockstep_run_context_fields {
  lockstep_run_context_drained_run = 1 << 0,
  lockstep_run_context_run = 1 << 1,
  lockstep_run_context_creation_run = 1 << 2,
  /// Also forgets the actors told for the claiming run, entering and leaving.
  lockstep_run_context_claim_run = 1 << 3,
  lockstep_run_context_outside_token = 1 << 4,
  lockstep_run_context_waiter_token = 1 << 5,
  lockstep_run_context_clocks = 1 << 6,
  lockstep_run_context_crash_trail = 1 << 7,
  lockstep_run_context_probes = 1 << 8,
} lockstep_run_context_fields;

/// The probes of `lockstep_run_context.probes`.
enum {
  /// Main-queue blocks the thread queues are counted (`MainQueue.c`).
  lockstep_probing_main_queue = 1 << 0,
  /// The next task the thread creates is recorded (`TaskCreation.c`).
  lockstep_probing_task_creation = 1 << 1,
};

/// Makes the calling thread's `fields` those of `next`, keeping what they were in `saved`; the
/// other fields stay as they are. Left with `lockstep_run_context_leave(saved, fields)`.
void lockstep_run_context_enter(
  const lockstep_run_context *next, lockstep_run_context_fields fields, lockstep_run_context *saved);

/// Gives the calling thread's `fields` back the values `saved` kept.
void lockstep_run_context_leave(const lockstep_run_context *saved, lockstep_run_context_fields fields);

/// The calling thread's record, valid as long as the thread lives; read it on that thread only.
const lockstep_run_context *lockstep_run_context_current(void);

/// Makes `clocks` the calling thread's clocks and returns the ones it had: the enter and the leave
/// of the clocks alone, one call each (around every job of a run).
lockstep_virtual_clocks *lockstep_run_context_swap_clocks(lockstep_virtual_clocks *clocks);

#endif
