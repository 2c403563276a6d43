// The executor switches (`swift_task_switch`) of a quarantined run's tasks, redirected while the
// run frees its actors. An actor's processing job runs the tasks queued on the actor; a task that
// leaves the actor for the generic executor does not come back to the run as a job: the runtime
// gives up the actor and runs the task on, in the same job (the actor's drain sets no task
// executor), and the task's next `await` on the actor queues it there again, behind a new
// processing job. A quarantined run whose tasks call a shared actor in a loop keeps the actor busy
// that way for good (QuarantinedActorTests). While a trap is set on the calling thread and its
// `should_trap` says so, a switch goes to the trap's executor instead, whose `enqueue` holds the
// task: the actor's drain goes on with the next job, and the actor ends idle.
//
// While a thread records them (`lockstep_task_switch_set_record`, around each actor's job of a
// run), each switch notes the running task: a task queued on a busy actor runs later, inside the
// actor's processing job, and a timeline tells that job by the tasks it ran.
//
// While a thread drains a run (its run context's `claim_run`), each switch to a default actor is
// told to the run's observer, once per actor among the last few: runs proceed side by side, and an
// actor two of them use is theirs one after the other (ActorClaims.swift).
//
// Compiled code calls `swift_task_switch` from the module that awaits, so a definition of it in
// the test executable is what it calls (as for `swift_task_create`, see TaskCreation.c); it
// passes every switch on to the runtime's definition with a tail call. Weak: where the runtime is
// linked statically its own definition wins, and no switch is redirected.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <stdlib.h>
#endif

#include "Internal/RunContext.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

/// The runtime's `swift_task_switch`: the resume context (in the async context register), the
/// resume function and the new executor (`SerialExecutorRef`, two words).
typedef __attribute__((swiftasynccall)) void (*task_switch_function)(
  __attribute__((swift_async_context)) void *context, void *resume, void *identity,
  uintptr_t implementation);

static task_switch_function next_task_switch;
/// The calling thread's trap; `NULL` (almost always) when its switches go where they are asked.
static __thread const lockstep_task_switch_trap *current_trap;
/// Where the calling thread records executor switches; `NULL` when it does not.
static __thread lockstep_task_switch_record *current_record;

/// The observer told of each default actor the calling thread's claiming run (its run context's)
/// switches to, unless it was told lately (`lockstep_thread_context.claimed_recently`).
static lockstep_actor_hop_observer hop_observer;

typedef __attribute__((swiftcall)) const void *(*get_current_task_function)(void);
static get_current_task_function get_current_task;

/// Records the running task's switch in `record`, by the task's runtime id (the task may be gone
/// by the time the record is read).
static void record_switch(lockstep_task_switch_record *record) {
  get_current_task_function current = __atomic_load_n(&get_current_task, __ATOMIC_ACQUIRE);
  if (current == NULL) {
    current = (get_current_task_function)dlsym(RTLD_DEFAULT, "swift_task_getCurrent");
    if (current == NULL) return;
    __atomic_store_n(&get_current_task, current, __ATOMIC_RELEASE);
  }
  int index = record->count;
  if (index < lockstep_task_switch_record_capacity) {
    const void *task = current();
    record->task_ids[index] = task ? lockstep_job_task_id(task) : 0;
  }
  record->count = index + 1;
}

/// Tells the observer that the calling thread's run switches to the default actor `identity`,
/// unless it told it recently.
static void claim(void *claimer, const void *identity) {
  lockstep_thread_context *thread = &lockstep_thread;
  for (unsigned index = 0; index < LOCKSTEP_CLAIMED_RECENTLY; index++) {
    if (thread->claimed_recently[index] == identity) return;
  }
  lockstep_actor_hop_observer observer = __atomic_load_n(&hop_observer, __ATOMIC_ACQUIRE);
  if (observer == NULL) return;
  observer(claimer, identity);
  thread->claimed_recently[thread->claimed_next % LOCKSTEP_CLAIMED_RECENTLY] = identity;
  thread->claimed_next += 1;
}

__attribute__((weak, swiftasynccall)) void swift_task_switch(
  __attribute__((swift_async_context)) void *context, void *resume, void *identity,
  uintptr_t implementation) {
  task_switch_function next = __atomic_load_n(&next_task_switch, __ATOMIC_ACQUIRE);
  if (__builtin_expect(next == NULL, 0)) {
    next = (task_switch_function)dlsym(RTLD_NEXT, "swift_task_switch");
    // Where nothing follows, this definition is the only one: no task could switch at all.
    if (next == NULL) abort();
    __atomic_store_n(&next_task_switch, next, __ATOMIC_RELEASE);
  }
  lockstep_task_switch_record *record = current_record;
  if (__builtin_expect(record != NULL, 0)) record_switch(record);
  void *claimer = lockstep_thread.context.claim_run;
  // A default actor's executor has no implementation; the generic executor has no identity.
  if (claimer != NULL && identity != NULL && implementation == 0) claim(claimer, identity);
  const lockstep_task_switch_trap *trap = current_trap;
  if (__builtin_expect(trap != NULL, 0) && trap->should_trap(trap->context)) {
    __attribute__((musttail)) return next(context, resume, trap->identity, trap->implementation);
  }
  __attribute__((musttail)) return next(context, resume, identity, implementation);
}

bool lockstep_task_switch_interposable(void) { return true; }

const lockstep_task_switch_trap *lockstep_task_switch_set_trap(const lockstep_task_switch_trap *trap) {
  const lockstep_task_switch_trap *previous = current_trap;
  current_trap = trap;
  return previous;
}

void lockstep_task_switch_set_record(lockstep_task_switch_record *record) { current_record = record; }

void lockstep_actor_claims_set_observer(lockstep_actor_hop_observer observer) {
  __atomic_store_n(&hop_observer, observer, __ATOMIC_RELEASE);
}

#else

bool lockstep_task_switch_interposable(void) { return false; }

const lockstep_task_switch_trap *lockstep_task_switch_set_trap(const lockstep_task_switch_trap *trap) {
  (void)trap;
  return 0;
}

void lockstep_task_switch_set_record(lockstep_task_switch_record *record) { (void)record; }

void lockstep_actor_claims_set_observer(lockstep_actor_hop_observer observer) { (void)observer; }

#endif
