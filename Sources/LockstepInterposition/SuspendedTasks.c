// Where a suspended task waits: the resume function of its job and the chain of its async
// contexts, each of which holds the function that resumes its caller. This is the runtime's
// layout, not its API (Swift 6.3's `Task.h` and `TaskPrivate.h`): the job's resume function and
// context follow the job header, the task's status flags follow them, and every async context
// starts with its parent and the parent's resume function. Lockstep checks the layout once per
// process with a probe task suspended at a known function and shows nothing when it does not
// hold. Every read of a task's memory is here; it stands in for no call and tells a run nothing.
// Linux; elsewhere nothing is read.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
#endif

#include "Internal/RuntimeImage.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

/// Where the fields sit in a task (x86_64 and arm64 Linux, Swift 6.3).
enum {
  job_flags_offset = 32,
  resume_function_offset = 56,
  resume_context_offset = 64,
  status_flags_offset = 96,
};

/// The job kind of a task, and the job flag of a task an `async let` created.
#define TASK_JOB_KIND 0
#define ASYNC_LET_TASK_FLAG ((uint32_t)1 << 28)

/// The task status flags.
#define STATUS_RUNNING 0x800
#define STATUS_COMPLETE 0x2000

extern void *swift_retain(void *object);
extern void swift_release(void *object);

/// The metadata every task object points to; `NULL` when the runtime does not say.
static const void *task_metadata(void) {
  static const void *metadata;
  static bool looked_up;
  if (!__atomic_load_n(&looked_up, __ATOMIC_ACQUIRE)) {
    const void *const *symbol = dlsym(RTLD_DEFAULT, "_swift_concurrency_debug_asyncTaskMetadata");
    __atomic_store_n(&metadata, symbol ? *symbol : NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&looked_up, true, __ATOMIC_RELEASE);
  }
  return __atomic_load_n(&metadata, __ATOMIC_RELAXED);
}

static uintptr_t word(const void *base, size_t offset) {
  return __atomic_load_n((const uintptr_t *)((const char *)base + offset), __ATOMIC_RELAXED);
}

/// Whether `job` is a task by its metadata and job kind.
static bool is_task(const void *job) {
  const void *metadata = task_metadata();
  if (job == NULL || metadata == NULL || (const void *)word(job, 0) != metadata) return false;
  uint32_t flags = __atomic_load_n((const uint32_t *)((const char *)job + job_flags_offset), __ATOMIC_RELAXED);
  return (flags & 0xff) == TASK_JOB_KIND;
}

bool lockstep_task_stacks_readable(void) { return task_metadata() != NULL; }

bool lockstep_task_retain(const void *job) {
  if (!is_task(job)) return false;
  uint32_t flags = __atomic_load_n((const uint32_t *)((const char *)job + job_flags_offset), __ATOMIC_RELAXED);
  // An `async let` task lives in its parent's frame, whatever its reference count says.
  if (flags & ASYNC_LET_TASK_FLAG) return false;
  swift_retain((void *)job);
  return true;
}

void lockstep_task_release(const void *task) { swift_release((void *)task); }

/// The job flags of an unstructured task (`Task {}`): it has a future, and is no child task,
/// whose fragments would come first.
#define CHILD_TASK_FLAG ((uint32_t)1 << 24)
#define FUTURE_TASK_FLAG ((uint32_t)1 << 25)

uintptr_t lockstep_future_wait_queue(const void *task, size_t offset) {
  if (!is_task(task) || offset % sizeof(uintptr_t) != 0 || offset >= 1024) return 0;
  uint32_t flags = __atomic_load_n((const uint32_t *)((const char *)task + job_flags_offset), __ATOMIC_RELAXED);
  if ((flags & CHILD_TASK_FLAG) || !(flags & FUTURE_TASK_FLAG)) return 0;
  return word(task, offset);
}

/// The runtime's kinds of jobs that are not tasks: the three kinds of default actor job, then the
/// nullary continuation that `Task.yield()` enqueues.
enum { FIRST_ACTOR_JOB_KIND = 192, LAST_ACTOR_JOB_KIND = 194, NULLARY_CONTINUATION_KIND = 195 };

int lockstep_job_kind(const void *job) {
  if (job == NULL) return lockstep_job_other;
  uint32_t kind =
    __atomic_load_n((const uint32_t *)((const char *)job + job_flags_offset), __ATOMIC_RELAXED) & 0xff;
  if (kind >= FIRST_ACTOR_JOB_KIND && kind <= LAST_ACTOR_JOB_KIND) return lockstep_job_actor;
  if (kind == NULLARY_CONTINUATION_KIND) return lockstep_job_yield;
  return lockstep_job_other;
}

/// The resume function of suspended `task`, then each async caller's, innermost first: at most
/// `limit` kept of at most `most` read, those in [`skip_start`, `skip_end`) skipped. Returns how
/// many it kept, or why it read nothing.
static int read_stack(
  const void *task, uintptr_t *addresses, int limit, int most, uintptr_t skip_start, uintptr_t skip_end) {
  if (!is_task(task)) return lockstep_task_stack_not_a_task;
  uint32_t status =
    __atomic_load_n((const uint32_t *)((const char *)task + status_flags_offset), __ATOMIC_ACQUIRE);
  if (status & STATUS_COMPLETE) return lockstep_task_stack_complete;
  if (status & STATUS_RUNNING) return lockstep_task_stack_running;
  int kept = 0;
  uintptr_t resume = word(task, resume_function_offset);
  uintptr_t context = word(task, resume_context_offset);
  for (int read = 0; read < most && kept < limit && resume != 0; read++) {
    if (resume < skip_start || resume >= skip_end) addresses[kept++] = resume;
    if (context == 0 || context % sizeof(uintptr_t) != 0) break;
    resume = word((const void *)context, sizeof(uintptr_t));
    context = word((const void *)context, 0);
  }
  return kept;
}

int lockstep_suspended_task_stack(const void *task, uintptr_t *addresses, int limit) {
  return read_stack(task, addresses, limit, limit, 0, 0);
}

int lockstep_suspension_site(const void *task, uintptr_t *addresses, int limit) {
  // The runtime's own resume functions (`libswift_Concurrency`) are skipped.
  if (__builtin_expect(!__atomic_load_n(&lockstep_runtime_found, __ATOMIC_ACQUIRE), 0)) {
    lockstep_runtime_image_find();
  }
  return read_stack(task, addresses, limit, 16, lockstep_runtime_start, lockstep_runtime_end);
}

#else

int lockstep_suspension_site(const void *task, uintptr_t *addresses, int limit) {
  (void)task, (void)addresses, (void)limit;
  return lockstep_task_stack_not_a_task;
}

bool lockstep_task_stacks_readable(void) { return false; }

bool lockstep_task_retain(const void *job) {
  (void)job;
  return false;
}

void lockstep_task_release(const void *task) { (void)task; }

int lockstep_job_kind(const void *job) {
  (void)job;
  return lockstep_job_other;
}

uintptr_t lockstep_future_wait_queue(const void *task, size_t offset) {
  (void)task, (void)offset;
  return 0;
}

int lockstep_suspended_task_stack(const void *task, uintptr_t *addresses, int limit) {
  (void)task, (void)addresses, (void)limit;
  return lockstep_task_stack_not_a_task;
}

#endif
