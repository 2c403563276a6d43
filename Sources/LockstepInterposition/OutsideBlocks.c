// The Dispatch calls that queue a block: `dispatch_async`, `dispatch_barrier_async`,
// `dispatch_after`, `dispatch_group_async` and `dispatch_group_notify` (`async`,
// `async(flags:)`, `async(group:)`, `asyncAfter`, `DispatchGroup.notify`, a `DispatchWorkItem`).
// A block for the main queue goes to the main-queue hand-off first (`MainQueue.c`). While one of a
// run's jobs, or its outside work, runs on the calling thread, a block for any other queue goes
// to its queue as outside work of the run: the run is told when it is queued and when it returns,
// and keeps virtual time still meanwhile; blocks and threads that outside work starts are the
// run's outside work too. An `asyncAfter` block a run's job queues for another queue is handed to
// the run, which queues it after its delay in the run's time (`OutsideWork.c`).
// A block keeps its Dispatch flags: a barrier (`dispatch_barrier_async`, or a block that
// `dispatch_block_create` made with `DISPATCH_BLOCK_BARRIER`, as the overlay does for
// `async(flags:)` and `DispatchWorkItem`) is queued as a barrier, and a block with flags runs
// through its own invoke function, libdispatch's, which honours its cancellation, QoS and voucher
// and lets `DispatchWorkItem.wait` and `notify` know it ran.
// Everywhere else the call goes on to libdispatch unchanged. A definition in the test executable
// is what those calls reach on Linux: the executable's symbol comes first in the dynamic linker's
// search order. Apple platforms bind each call to its library (two-level namespaces), so there
// nothing is defined here.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <stdlib.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/DispatchObjects.h"
#include "Internal/MainQueue.h"
#include "Internal/NextDefinition.h"
#include "Internal/OutsideWork.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef void (*dispatch_async_function)(void *queue, void *block);
typedef void (*dispatch_after_function)(uint64_t when, void *queue, void *block);
typedef void (*dispatch_function)(void *context);
typedef void (*dispatch_async_f_function)(void *queue, void *context, dispatch_function work);
typedef void (*dispatch_after_f_function)(
  uint64_t when, void *queue, void *context, dispatch_function work);
typedef void (*dispatch_group_f_function)(
  void *group, void *queue, void *context, dispatch_function work);
typedef void (*dispatch_group_block_function)(void *group, void *queue, void *block);
typedef void (*dispatch_object_function)(void *object);

static dispatch_async_function next_dispatch_async;
static dispatch_after_function next_dispatch_after;
static dispatch_async_f_function next_dispatch_async_f;
static dispatch_async_f_function next_dispatch_barrier_async_f;
static dispatch_async_function next_dispatch_barrier_async;
static dispatch_after_f_function next_dispatch_after_f;
static dispatch_group_f_function next_dispatch_group_async_f;
static dispatch_group_f_function next_dispatch_group_notify_f;
static dispatch_group_block_function next_dispatch_group_async;
static dispatch_group_block_function next_dispatch_group_notify;
static dispatch_object_function dispatch_retain_function;
static dispatch_object_function dispatch_release_function;
static dispatch_object_function next_dispatch_group_enter;

/// A block queued as a run's outside work, and the token the run gave it.
typedef struct {
  void *block;
  void *token;
  /// Whether the block waited before it runs (a delay, a group): the waiting holds no time, the
  /// running does.
  bool waited;
  /// The group a `dispatch_group_async` block leaves once it returned, before the run hears that
  /// it did (a job parked in the group's wait resumes first); `NULL` for other blocks.
  void *group;
  /// Whether the block is a barrier: queued with `dispatch_barrier_async`, or made with the flag.
  bool barrier;
} outside_block;

/// Runs an outside block on the thread its queue chose, reading the run's clocks: blocks and
/// threads it starts are the run's outside work too. Then tells the run it returned.
static void run_outside_block(void *context) {
  outside_block *work = context;
  lockstep_run_context saved;
  lockstep_outside_work_enter(work->token, &saved);
  void *running = work->token;
  if (work->waited) {
    // It has waited; now it runs, as a block queued with `async` by the work that waited.
    void *started = lockstep_outside_work_begin(NULL, lockstep_outside_async);
    if (started != NULL) running = started;
    if (started != NULL) lockstep_outside_work_end(work->token);
    lockstep_outside_work_switch(running);
  }
  ((lockstep_block_layout *)work->block)->invoke(work->block);
  if (work->group != NULL) {
    dispatch_group_leave(work->group);
    dispatch_object_function release = (dispatch_object_function)lockstep_next_definition(
      (void **)&dispatch_release_function, "dispatch_release");
    release(work->group);
  }
  lockstep_run_context_swap_out(&saved, LOCKSTEP_OUTSIDE_WORK_FIELDS);
  lockstep_release_block(work->block);
  lockstep_outside_work_end(running);
  free(work);
}

/// `block` for `queue` as the run's outside work, ready for a `_f` call; `NULL` when it is not.
/// `barrier`: queued as a barrier whatever the block's flags say.
static outside_block *as_outside_work(void *queue, void *block, int kind, bool barrier) {
  if (queue == lockstep_dispatch_main_queue()) return NULL;
  void *token = lockstep_outside_work_begin(queue, kind);
  if (token == NULL) return NULL;
  outside_block *work = malloc(sizeof *work);
  void *copy = work != NULL ? lockstep_copy_block(block) : NULL;
  if (copy == NULL) {
    free(work);
    lockstep_outside_work_end(token);
    return NULL;
  }
  *work = (outside_block){
    .block = copy,
    .token = token,
    .waited = kind == lockstep_outside_after || kind == lockstep_outside_group_notify
      || kind == lockstep_outside_source_registration,
    .barrier = barrier || (lockstep_block_flags(block) & lockstep_dispatch_block_barrier) != 0,
  };
  return work;
}

/// `dispatch_async_f`, or `dispatch_barrier_async_f` for a barrier: what queues `work` as it
/// was asked to be queued.
static dispatch_async_f_function async_f_for(outside_block *work) {
  if (work->barrier) {
    return (dispatch_async_f_function)lockstep_next_definition(
      (void **)&next_dispatch_barrier_async_f, "dispatch_barrier_async_f");
  }
  return (dispatch_async_f_function)lockstep_next_definition(
    (void **)&next_dispatch_async_f, "dispatch_async_f");
}

/// Gives up outside work that could not be queued (`NULL`: nothing): the block goes to
/// libdispatch's own call instead.
static void discard_outside_work(outside_block *work) {
  if (work == NULL) return;
  lockstep_outside_work_end(work->token);
  lockstep_release_block(work->block);
  free(work);
}

void lockstep_dispatch_async_now(void *queue, void *block) {
  dispatch_async(queue, block);
  lockstep_release_block(block);
  dispatch_object_function release = (dispatch_object_function)lockstep_next_definition(
    (void **)&dispatch_release_function, "dispatch_release");
  if (release != NULL) release(queue);
}

/// Whether the calling thread queued `block` for `queue` as the run's outside work (or handed it
/// to the run, for the main queue, serial: there a barrier is any block).
static bool async_of_run(void *queue, void *block, bool barrier) {
  if (lockstep_main_queue_hand_off(queue, block, false, 0)) return true;
  if (__builtin_expect(!lockstep_outside_work_possible(), 1)) return false;
  outside_block *work = as_outside_work(queue, block, lockstep_outside_async, barrier);
  dispatch_async_f_function next_f = work != NULL ? async_f_for(work) : NULL;
  if (next_f != NULL) {
    next_f(queue, work, run_outside_block);
    return true;
  }
  discard_outside_work(work);
  return false;
}

void dispatch_async(void *queue, void *block) {
  if (async_of_run(queue, block, false)) return;
  dispatch_async_function next =
    (dispatch_async_function)lockstep_next_definition((void **)&next_dispatch_async, "dispatch_async");
  next(queue, block);
}

void dispatch_barrier_async(void *queue, void *block) {
  if (async_of_run(queue, block, true)) return;
  dispatch_async_function next = (dispatch_async_function)lockstep_next_definition(
    (void **)&next_dispatch_barrier_async, "dispatch_barrier_async");
  next(queue, block);
}

// A barrier that waits (a delay, a group) before libdispatch queues it: the `_f` calls that wait
// have no barrier variant, so libdispatch gets a block of its own, made by `dispatch_block_create`
// with the barrier flag around a heap block of Lockstep's that runs the outside work. It is laid out
// by hand (the C target is built without blocks); the blocks runtime frees it with the block made
// around it.

/// A heap block that runs an outside block.
typedef struct {
  lockstep_block_layout layout;
  const void *descriptor;
  outside_block *work;
} outside_block_runner;

static const struct {
  unsigned long reserved;
  unsigned long size;
} outside_block_runner_descriptor = {0, sizeof(outside_block_runner)};

static void *malloc_block_class;

static void run_outside_block_runner(void *block) { run_outside_block(((outside_block_runner *)block)->work); }

/// `work` as a barrier block of libdispatch's, for a call that takes a block (the caller releases
/// it once it is queued); `NULL` when none could be made.
static void *barrier_block(outside_block *work) {
  typedef void *(*block_create_function)(unsigned long flags, void *block);
  static void *create_slot;
  block_create_function create =
    (block_create_function)lockstep_next_definition(&create_slot, "dispatch_block_create");
  void *block_class = __atomic_load_n(&malloc_block_class, __ATOMIC_ACQUIRE);
  if (block_class == NULL) {
    block_class = dlsym(RTLD_DEFAULT, "_NSConcreteMallocBlock");
    __atomic_store_n(&malloc_block_class, block_class, __ATOMIC_RELEASE);
  }
  outside_block_runner *runner = block_class != NULL && create != NULL ? malloc(sizeof *runner) : NULL;
  if (runner == NULL) return NULL;
  *runner = (outside_block_runner){
    // BLOCK_NEEDS_FREE, one reference (the count is kept in steps of 2).
    .layout = {.isa = block_class, .flags = (1 << 24) | 2, .invoke = run_outside_block_runner},
    .descriptor = &outside_block_runner_descriptor,
    .work = work,
  };
  void *made = create(lockstep_dispatch_block_barrier, runner);  // takes a reference of its own
  lockstep_release_block(runner);
  return made;
}

void dispatch_after(uint64_t when, void *queue, void *block) {
  // The main-queue probe sees `asyncAfter` too.
  if (__builtin_expect(lockstep_current_run() != NULL || lockstep_probing(lockstep_probing_main_queue), 0)) {
    int64_t delay = lockstep_dispatch_time_remaining(when);
    if (delay >= 0 && lockstep_main_queue_hand_off(queue, block, true, delay)) return;
    if (delay >= 0 && lockstep_outside_work_delayed(queue, block, delay)) return;
  }
  if (__builtin_expect(lockstep_current_outside_token() != NULL, 0) && when != ~0ull) {
    int64_t delay = lockstep_dispatch_time_remaining(when);
    if (delay >= 0 && lockstep_main_queue_hand_off(queue, block, true, delay)) return;
    // Outside work's delay passes in the run's time too, in a task of the run.
    if (delay >= 0 && lockstep_outside_work_delayed(queue, block, delay)) return;
    // Where the run does not take it, the delay is real: while it waits, the run reports no
    // deadlock; once the block runs, virtual time stands still until it returns.
    outside_block *work = as_outside_work(queue, block, lockstep_outside_after, false);
    if (work != NULL && work->barrier) {
      void *barrier = barrier_block(work);
      dispatch_after_function next_block = (dispatch_after_function)lockstep_next_definition(
        (void **)&next_dispatch_after, "dispatch_after");
      if (barrier != NULL) {
        next_block(when, queue, barrier);
        lockstep_release_block(barrier);
        return;
      }
    } else if (work != NULL) {
      dispatch_after_f_function next_f = (dispatch_after_f_function)lockstep_next_definition(
        (void **)&next_dispatch_after_f, "dispatch_after_f");
      if (next_f != NULL) {
        next_f(when, queue, work, run_outside_block);
        return;
      }
    }
    discard_outside_work(work);
  }
  dispatch_after_function next =
    (dispatch_after_function)lockstep_next_definition((void **)&next_dispatch_after, "dispatch_after");
  next(when, queue, block);
}

/// `dispatch_group_async` or `dispatch_group_notify`: outside work of the run when the calling
/// thread runs a run's job or its outside work, libdispatch's call otherwise.
static void group_call(
  void *group, void *queue, void *block, int kind, dispatch_group_block_function *next_block_slot,
  const char *block_name, dispatch_group_f_function *next_function, const char *function_name)
{
  if (__builtin_expect(lockstep_outside_work_possible(), 0)) {
    outside_block *work = as_outside_work(queue, block, kind, false);
    if (work != NULL && kind == lockstep_outside_group_async) {
      // Entered here and left by `run_outside_block`, so that the group is empty before the run
      // hears that its last block returned.
      dispatch_object_function enter = (dispatch_object_function)lockstep_next_definition(
        (void **)&next_dispatch_group_enter, "dispatch_group_enter");
      dispatch_object_function retain = (dispatch_object_function)lockstep_next_definition(
        (void **)&dispatch_retain_function, "dispatch_retain");
      dispatch_async_f_function async_f = async_f_for(work);
      if (enter != NULL && retain != NULL && async_f != NULL) {
        retain(group);
        enter(group);
        work->group = group;
        async_f(queue, work, run_outside_block);
        return;
      }
    } else if (work != NULL && work->barrier) {
      void *barrier = barrier_block(work);
      if (barrier != NULL) {
        dispatch_group_block_function next_block =
          (dispatch_group_block_function)lockstep_next_definition((void **)next_block_slot, block_name);
        next_block(group, queue, barrier);
        lockstep_release_block(barrier);
        return;
      }
      discard_outside_work(work);
      work = NULL;
    }
    dispatch_group_f_function next_f =
      (dispatch_group_f_function)lockstep_next_definition((void **)next_function, function_name);
    if (work != NULL && next_f != NULL) {
      next_f(group, queue, work, run_outside_block);
      return;
    }
    discard_outside_work(work);
  }
  dispatch_group_block_function next =
    (dispatch_group_block_function)lockstep_next_definition((void **)next_block_slot, block_name);
  next(group, queue, block);
}

void dispatch_group_async(void *group, void *queue, void *block) {
  group_call(
    group, queue, block, lockstep_outside_group_async, &next_dispatch_group_async,
    "dispatch_group_async", &next_dispatch_group_async_f, "dispatch_group_async_f");
}

void dispatch_group_notify(void *group, void *queue, void *block) {
  group_call(
    group, queue, block, lockstep_outside_group_notify, &next_dispatch_group_notify,
    "dispatch_group_notify", &next_dispatch_group_notify_f, "dispatch_group_notify_f");
}

#else

void lockstep_dispatch_async_now(void *queue, void *block) {
  (void)queue;
  (void)block;
}

#endif
