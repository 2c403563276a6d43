// The tasks a deterministic run's jobs create, seen as they are created: their name and where in
// the code they were created, for reports and timelines. `Task(name:)`, `Task.detached(name:)`,
// `Task {}` and a task group's `addTask` call `swift_task_create` from the code that creates the
// task (the call is emitted into the caller's module), so a definition of it in the test
// executable is what they call; it passes every creation on to the Swift runtime's definition.
// Only while the calling thread runs a run's jobs (its run context, set by the run) does it look at
// the creation: the name record among the task's options, whose buffer lives only during the call,
// the return addresses of the creating frames, and the new task, which the observer gets before
// the call returns. While a run is in progress (a flag, set by the run), the tasks that other
// threads create are reported too, so that the run does not take them for its own.
//
// This is the runtime's ABI, not its API: the option records, the name record's kind and the
// order of the arguments are what Swift 6.3 emits. Lockstep checks them once per process with
// probe tasks (see `lockstep_task_creation_probe_end`) and observes nothing when they do not hold.
// The definition is weak: where the runtime is linked statically (`--static-swift-stdlib`) the
// runtime's own definition wins and the probe finds nothing. Apple platforms bind each call to its
// library (two-level namespaces), so there nothing is defined here.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <pthread.h>
  #include <stdlib.h>
  #include <string.h>
#endif

#include "BenchHooks.h"
#include "Internal/FrameRecords.h"
#include "Internal/RunContext.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

/// The runtime's `AsyncTaskAndContext`: the new task and its initial context.
typedef struct lockstep_task_and_context {
  void *task;
  void *context;
} lockstep_task_and_context;

/// The head of every task option record: its flags (the kind in the low byte) and the next record.
typedef struct lockstep_task_option {
  size_t flags;
  struct lockstep_task_option *parent;
} lockstep_task_option;

/// The kind of the record that holds a task's name (`const char *`, right after the head).
#define LOCKSTEP_TASK_NAME_OPTION 7

typedef __attribute__((swiftcall)) lockstep_task_and_context (*task_create_function)(
  size_t flags, lockstep_task_option *options, const void *result_type, void *entry, void *closure);

static task_create_function next_task_create;
static lockstep_task_creation_observer observer;
static lockstep_task_creation_outside_observer outside_observer;
/// Whether creations of threads without a context are reported (a run is in progress).
static bool watching_outside;

/// What the probe saw on the calling thread (while its run context says it probes).
static __thread struct {
  bool seen;
  const void *task;
  bool named;
  char name[64];
  uintptr_t caller;
} probe;

/// The return addresses of the frames above `frame`, innermost first, zero where there are fewer.
__attribute__((noinline)) static void read_callers(uintptr_t frame, uintptr_t *callers) {
  for (int index = 0; index < LOCKSTEP_CREATION_FRAMES; index++) callers[index] = 0;
  lockstep_frame_record_callers(frame, callers, LOCKSTEP_CREATION_FRAMES);
}

static const char *task_name(lockstep_task_option *options) {
  for (lockstep_task_option *option = options; option; option = option->parent) {
    if ((option->flags & 0xff) == LOCKSTEP_TASK_NAME_OPTION) return *(const char **)(option + 1);
  }
  return NULL;
}

/// The hook's own work, around `next`: the run context's reads (`context` is its creation run)
/// and, without `context`, a flag's.
__attribute__((always_inline)) static inline lockstep_task_and_context create(
  task_create_function next, void *context, uintptr_t frame, size_t flags,
  lockstep_task_option *options, const void *result_type, void *entry, void *closure) {
  if (__builtin_expect(context == NULL, 1)
    && __builtin_expect(!lockstep_probing(lockstep_probing_task_creation), 1)) {
    if (__builtin_expect(!__atomic_load_n(&watching_outside, __ATOMIC_ACQUIRE), 1))
      return next(flags, options, result_type, entry, closure);
    lockstep_task_and_context result = next(flags, options, result_type, entry, closure);
    lockstep_task_creation_outside_observer report =
      __atomic_load_n(&outside_observer, __ATOMIC_ACQUIRE);
    if (report) report(result.task);
    return result;
  }
  lockstep_created_task created;
  created.name = task_name(options);
  read_callers(frame, created.callers);
  lockstep_task_and_context result = next(flags, options, result_type, entry, closure);
  // The caller still holds its reference to the task: it is alive until this call returns.
  created.task = result.task;
  if (context == NULL) {
    probe.seen = true;
    probe.task = created.task;
    probe.named = created.name != NULL;
    probe.name[0] = 0;
    if (created.name) strncpy(probe.name, created.name, sizeof probe.name - 1);
    probe.name[sizeof probe.name - 1] = 0;
    probe.caller = created.callers[0];
  } else {
    lockstep_task_creation_observer report = __atomic_load_n(&observer, __ATOMIC_ACQUIRE);
    if (report) report(context, &created);
  }
  return result;
}

__attribute__((weak, swiftcall)) lockstep_task_and_context swift_task_create(
  size_t flags, lockstep_task_option *options, const void *result_type, void *entry, void *closure) {
  task_create_function next = __atomic_load_n(&next_task_create, __ATOMIC_ACQUIRE);
  if (__builtin_expect(next == NULL, 0)) {
    next = (task_create_function)dlsym(RTLD_NEXT, "swift_task_create");
    // Where nothing follows, this definition is the only one: no task could be created at all.
    if (next == NULL) abort();
    __atomic_store_n(&next_task_create, next, __ATOMIC_RELEASE);
  }
  return create(
    next, lockstep_thread.context.creation_run, (uintptr_t)__builtin_frame_address(0), flags, options,
    result_type, entry, closure);
}

bool lockstep_task_creation_interposable(void) { return true; }

void lockstep_task_creation_set_observer(lockstep_task_creation_observer report) {
  __atomic_store_n(&observer, report, __ATOMIC_RELEASE);
}

void lockstep_task_creation_set_outside_observer(lockstep_task_creation_outside_observer report) {
  __atomic_store_n(&outside_observer, report, __ATOMIC_RELEASE);
}

void lockstep_task_creation_watch_outside(bool watch) {
  __atomic_store_n(&watching_outside, watch, __ATOMIC_RELEASE);
}

/// What the task-creation probe sets: no run's, probing.
static const lockstep_run_context creation_probe = {
  .creation_run = NULL, .probes = lockstep_probing_task_creation};

void lockstep_task_creation_probe_begin(lockstep_run_context *saved) {
  memset(&probe, 0, sizeof probe);
  lockstep_run_context_swap_in(
    &creation_probe, lockstep_run_context_creation_run | lockstep_run_context_probes, saved);
}

bool lockstep_task_creation_probe_end(
  const lockstep_run_context *saved, const void *task, const char *name, const void *image) {
  lockstep_run_context_swap_out(saved, lockstep_run_context_creation_run | lockstep_run_context_probes);
  if (!probe.seen || probe.task != task) return false;
  if ((name != NULL) != probe.named || (name && strcmp(name, probe.name) != 0)) return false;
  Dl_info caller, expected;
  if (!dladdr((void *)probe.caller, &caller) || !dladdr(image, &expected)) return false;
  return caller.dli_fbase == expected.dli_fbase;
}

/// What the bench measures the hook's own work against: a runtime that creates nothing.
__attribute__((noinline, swiftcall)) static lockstep_task_and_context measure_runtime(
  size_t flags, lockstep_task_option *options, const void *result_type, void *entry, void *closure) {
  (void)options, (void)result_type, (void)entry, (void)closure;
  lockstep_task_and_context result = {(void *)flags, 0};
  __asm__ volatile("" : : "r"(result.task) : "memory");
  return result;
}

static task_create_function measured_runtime = measure_runtime;

uintptr_t lockstep_task_creation_measure_hook(size_t flags) {
  task_create_function next = __atomic_load_n(&measured_runtime, __ATOMIC_ACQUIRE);
  void *context = lockstep_thread.context.creation_run;
  if (context != NULL) return 0;
  return (uintptr_t)create(
    next, context, (uintptr_t)__builtin_frame_address(0), flags, NULL, NULL, NULL, NULL)
    .task;
}

uintptr_t lockstep_task_creation_measure_direct(size_t flags) {
  task_create_function next = __atomic_load_n(&measured_runtime, __ATOMIC_ACQUIRE);
  return (uintptr_t)next(flags, NULL, NULL, NULL, NULL).task;
}

#else

bool lockstep_task_creation_interposable(void) { return false; }

void lockstep_task_creation_set_observer(lockstep_task_creation_observer report) { (void)report; }

void lockstep_task_creation_set_outside_observer(lockstep_task_creation_outside_observer report) {
  (void)report;
}

void lockstep_task_creation_watch_outside(bool watch) { (void)watch; }

void lockstep_task_creation_probe_begin(lockstep_run_context *saved) { (void)saved; }

bool lockstep_task_creation_probe_end(
  const lockstep_run_context *saved, const void *task, const char *name, const void *image) {
  (void)saved, (void)task, (void)name, (void)image;
  return false;
}

uintptr_t lockstep_task_creation_measure_hook(size_t flags) { return flags; }

uintptr_t lockstep_task_creation_measure_direct(size_t flags) { return flags; }

#endif
