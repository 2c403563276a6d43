// What each thread works for: the run whose jobs it runs (set by the run around each stretch of
// its draining), or the outside work of a run it runs (set by the stand-ins around a block or a
// thread a run's work started). Every stand-in asks it before it tells a run of a call: the
// main-queue hand-off, outside work, blocking waits, lock calls, run loops. Below all of them,
// and it tells the run nothing itself. Linux only, as the stand-ins; elsewhere nothing is kept.
#include "Internal/RunOfThread.h"

#if defined(__linux__)

__thread void *lockstep_thread_run __attribute__((tls_model("initial-exec")));
__thread void *lockstep_thread_outside_token __attribute__((tls_model("initial-exec")));
char lockstep_probe_run;

void *lockstep_current_run_enter(void *run) {
  void *previous = lockstep_thread_run;
  lockstep_thread_run = run;
  return previous;
}

void *lockstep_outside_work_enter(void *token) {
  void *previous = lockstep_thread_outside_token;
  lockstep_thread_outside_token = token;
  return previous;
}

void *lockstep_outside_work_current(void) { return lockstep_thread_outside_token; }

#else

void *lockstep_current_run_enter(void *run) { return run; }
void *lockstep_outside_work_enter(void *token) { return token; }
void *lockstep_outside_work_current(void) { return NULL; }

#endif
