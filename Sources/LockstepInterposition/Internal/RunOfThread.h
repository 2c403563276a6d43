// What the calling thread works for, read inline by the stand-ins (`RunOfThread.c` defines it):
// private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_RUN_OF_THREAD_H
#define LOCKSTEP_INTERNAL_RUN_OF_THREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "../include/RunOfThread.h"

#if defined(__linux__)

/// The run whose jobs the calling thread runs: `NULL` while it runs none, `&lockstep_probe_run`
/// while the main-queue probe runs on it (`MainQueue.c`). Initial-exec, as the clocks a thread
/// reads (`VirtualClocks.c`): a direct thread-pointer access, read on every stand-in's call.
extern __thread void *lockstep_thread_run __attribute__((tls_model("initial-exec")));

/// The outside work of a run the calling thread runs (its token); `NULL` on other threads.
extern __thread void *lockstep_thread_outside_token __attribute__((tls_model("initial-exec")));

/// The calling thread's run while the main-queue probe runs on it: no run's, so that the probe
/// sees the main-queue blocks the thread queues and tells no run of anything.
extern char lockstep_probe_run;

/// The run whose jobs the calling thread runs; `NULL` while it runs none, or probes.
static inline void *lockstep_current_run(void) {
  void *run = lockstep_thread_run;
  return run == &lockstep_probe_run ? NULL : run;
}

/// Whether the calling thread runs a run's job or its outside work: what it starts may be outside
/// work.
static inline bool lockstep_outside_work_possible(void) {
  return lockstep_current_run() != NULL || lockstep_thread_outside_token != NULL;
}

#endif

#endif
