// The tasks of a run as the concurrency runtime creates and switches them: task creation
// (`TaskCreation.c`), executor switches and the actors a run claims (`TaskSwitch.c`).
#ifndef LOCKSTEP_TASKS_H
#define LOCKSTEP_TASKS_H

#include "RunContext.h"
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/// How many return addresses of the creating frames a task creation records.
#define LOCKSTEP_CREATION_FRAMES 4

/// One task creation, as `swift_task_create` saw it.
typedef struct lockstep_created_task {
  /// The new task: the address of its first job, as an executor sees it.
  const void *task;
  /// Its name, valid only during the observer's call; `NULL` for a task without one.
  const char *name;
  /// The return addresses of the creating frames, innermost first (the first is in the function
  /// that called `swift_task_create`); 0 past the last one read.
  uintptr_t callers[LOCKSTEP_CREATION_FRAMES];
} lockstep_created_task;

/// Receives the task creations of a thread whose run context names a creation run
/// (`lockstep_run_context.creation_run`, passed as `context`), during the creating call.
typedef void (*lockstep_task_creation_observer)(void *context, const lockstep_created_task *task);

/// Whether this build defines `swift_task_create` (Linux). Whether the definition is the one task
/// creation calls, and reads what it expects, is what the probe checks.
bool lockstep_task_creation_interposable(void);

/// Sets the function that receives observed creations (once, before any context is entered).
void lockstep_task_creation_set_observer(lockstep_task_creation_observer observer);

/// Receives the tasks that threads without a context create while outside creations are watched.
typedef void (*lockstep_task_creation_outside_observer)(const void *task);

/// Sets the function that receives outside creations (once, before any watch starts).
void lockstep_task_creation_set_outside_observer(lockstep_task_creation_outside_observer observer);

/// Starts (`true`) or stops watching the creations of threads without a context: a deterministic
/// run in progress must tell the tasks created outside it from its own.
void lockstep_task_creation_watch_outside(bool watch);

/// Starts the probe on the calling thread: the next task it creates is recorded, not reported.
/// Keeps the thread's run context in `saved`, for `lockstep_task_creation_probe_end`.
void lockstep_task_creation_probe_begin(lockstep_run_context *saved);

/// Ends the probe: whether the task it recorded is `task`, named `name` (`NULL`: no name), and
/// was created by code in the image that holds `image`. Restores the thread's run context.
bool lockstep_task_creation_probe_end(
  const lockstep_run_context *saved, const void *task, const char *name, const void *image);

/// Where the executor switches of a thread go while a trap is set on it (`TaskSwitch.c`): to the
/// executor `identity`/`implementation` (a `SerialExecutorRef`) for each switch that
/// `should_trap(context)` says to trap, called on the switching task's thread.
typedef struct lockstep_task_switch_trap {
  void *identity;
  uintptr_t implementation;
  bool (*should_trap)(void *context);
  void *context;
} lockstep_task_switch_trap;

/// Whether this build defines `swift_task_switch` (Linux).
bool lockstep_task_switch_interposable(void);

/// Sets the calling thread's trap (`NULL`: none); returns the one it had.
const lockstep_task_switch_trap *lockstep_task_switch_set_trap(const lockstep_task_switch_trap *trap);

enum { lockstep_task_switch_record_capacity = 16 };

/// The tasks that made executor switches on a thread while it records them: the runtime id of
/// each switching task, the first `lockstep_task_switch_record_capacity` switches, and how many
/// there were.
typedef struct lockstep_task_switch_record {
  int count;
  uint64_t task_ids[lockstep_task_switch_record_capacity];
} lockstep_task_switch_record;

/// Records the calling thread's executor switches in `record` (`NULL`: stops recording).
void lockstep_task_switch_set_record(lockstep_task_switch_record *record);

/// Told, on the switching thread, that the run `context` (the claiming run of its run context,
/// `lockstep_run_context.claim_run`) switches to the default actor `actor`.
typedef void (*lockstep_actor_hop_observer)(void *context, const void *actor);

/// Sets the observer of switches to default actors (`TaskSwitch.c`).
void lockstep_actor_claims_set_observer(lockstep_actor_hop_observer observer);

#endif
