// What Lockstep reads of tasks and jobs in the runtime's memory (`SuspendedTasks.c`,
// `JobTaskIDs.c`): where a suspended task waits, what a job is, which task it belongs to.
#ifndef LOCKSTEP_SUSPENDED_TASKS_H
#define LOCKSTEP_SUSPENDED_TASKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/// Why `lockstep_suspended_task_stack` read nothing.
enum {
  /// Not a task of this runtime (its metadata or job kind differ), or not Linux.
  lockstep_task_stack_not_a_task = -1,
  /// The task is running: its frames change as they are read.
  lockstep_task_stack_running = -2,
  /// The task has finished: its frames are gone.
  lockstep_task_stack_complete = -3,
};

/// Whether this build can read where suspended tasks wait (Linux, with the runtime's task
/// metadata symbol). Whether the layout it reads holds is what the probe checks.
bool lockstep_task_stacks_readable(void);

/// Keeps the task whose job is `job` alive (a strong reference) and returns `true`, when `job` is
/// a task that may outlive the scope that created it (not an `async let` task's).
bool lockstep_task_retain(const void *job);

/// The kind of a job that is not a task, by the runtime's job kinds (Swift 6.3's
/// `MetadataValues.h`): an actor's job, or the job that resumes a task after `Task.yield()`.
enum {
  lockstep_job_other = 0,
  lockstep_job_actor = 1,
  lockstep_job_yield = 2,
};

/// What the job `job`, not yet run, is (`lockstep_job_other` where it cannot be read).
int lockstep_job_kind(const void *job);

/// The word at `offset` (aligned, under 1 KiB) of `task`, kept alive by the caller, when `task` is
/// an unstructured task (`Task {}`: a future, no child): the head of its queue of tasks awaiting its
/// value, where a probe located it. 0 otherwise, or not on Linux.
uintptr_t lockstep_future_wait_queue(const void *task, size_t offset);

/// The runtime id of the task `job` belongs to (`swift_task_getJobTaskId`, looked up rather than
/// linked, so that the package loads on OS versions whose runtime lacks it); 0 there.
uint64_t lockstep_job_task_id(const void *job);

/// Gives up a reference `lockstep_task_retain` took.
void lockstep_task_release(const void *task);

/// Where `task`, suspended, waits: the resume function of its job, then the function that resumes
/// each of its async callers, innermost first, at most `limit`. Returns how many it wrote, or one
/// of the negative reasons above. The caller keeps `task` alive.
int lockstep_suspended_task_stack(const void *task, uintptr_t *addresses, int limit);

/// The first `limit` addresses of `lockstep_suspended_task_stack` that are not the concurrency
/// runtime's own (`withCheckedContinuation`, `withTaskGroup` and the like): where the code that
/// called it waits, cheap enough to read after every step.
int lockstep_suspension_site(const void *task, uintptr_t *addresses, int limit);

#endif
