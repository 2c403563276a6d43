// The Dispatch calls of a deterministic run's jobs. While one of a run's jobs runs on the run's
// thread:
// - `DispatchQueue.main.async` and `asyncAfter` (which reach libdispatch's exported
//   `dispatch_async` and `dispatch_after`) hand their block to the run, which makes it a
//   main-actor task of its own, in the run's order and, for `asyncAfter`, after its delay in the
//   run's time;
// - a block for any other queue (`async`, `async(flags:)`, `async(group:)`, `DispatchGroup.notify`,
//   a `DispatchWorkItem`) goes to its queue as outside work of the run: the run is told when it is
//   queued and when it returns, and keeps virtual time still meanwhile. Blocks and threads that
//   outside work starts are the run's outside work too. An `asyncAfter` block for another queue is
//   handed to the run, which queues it after its delay in the run's time.
// A block keeps its Dispatch flags: a barrier (`dispatch_barrier_async`, or a block that
// `dispatch_block_create` made with `DISPATCH_BLOCK_BARRIER`, as the overlay does for
// `async(flags:)` and `DispatchWorkItem`) is queued as a barrier, and a block with flags runs
// through its own invoke function, libdispatch's, which honours its cancellation, QoS and voucher
// and lets `DispatchWorkItem.wait` and `notify` know it ran.
// Everywhere else the call goes on to libdispatch unchanged. A definition in the test executable
// is what those calls reach on Linux: the executable's symbol comes first in the dynamic linker's
// search order. Apple platforms bind each call to its library (two-level namespaces), so there
// nothing is defined here.
//
// This is interposition, not API: Lockstep checks it once per process (see
// `lockstep_main_queue_probe_end`) and hands nothing to runs when it does not hold.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <pthread.h>
  #include <signal.h>
  #include <stdlib.h>
  #include <time.h>
  #include <unistd.h>
#endif

#include "LockstepInterposition.h"
#include "NextDefinition.h"

#if defined(__linux__)

typedef void (*dispatch_async_function)(void *queue, void *block);
typedef void *(*block_copy_function)(const void *block);
typedef void (*block_release_function)(const void *block);
typedef void (*dispatch_after_function)(uint64_t when, void *queue, void *block);
typedef void (*dispatch_function)(void *context);
typedef void (*dispatch_async_f_function)(void *queue, void *context, dispatch_function work);
typedef void (*dispatch_after_f_function)(
  uint64_t when, void *queue, void *context, dispatch_function work);
typedef void (*dispatch_group_f_function)(
  void *group, void *queue, void *context, dispatch_function work);
typedef void (*dispatch_group_block_function)(void *group, void *queue, void *block);
typedef void (*dispatch_object_function)(void *object);
typedef const char *(*queue_label_function)(void *queue);

static dispatch_async_function next_dispatch_async;
static dispatch_after_function next_dispatch_after;
static block_copy_function block_copy;
static block_release_function block_release;
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
static queue_label_function queue_label;
static void *main_queue;
static lockstep_main_queue_observer main_queue_observer;
static lockstep_main_queue_outside_observer main_queue_outside_observer;
static lockstep_outside_began outside_began;
static lockstep_outside_ended outside_ended;
static lockstep_delayed_block_observer delayed_block_observer;

/// The outside work of a run the calling thread runs now (its token); `NULL` on other threads.
static __thread void *outside_token;

void dispatch_async(void *queue, void *block);
void dispatch_group_leave(void *group);

/// The run the calling thread's main-queue blocks go to; `NULL` while it runs no run's jobs.
static __thread void *main_queue_context;

/// What the probe saw on the calling thread.
static char main_queue_probe_marker;
static __thread int main_queue_probe_seen;

static void *the_main_queue(void) {
  void *queue = __atomic_load_n(&main_queue, __ATOMIC_ACQUIRE);
  if (__builtin_expect(queue == NULL, 0)) {
    queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
    __atomic_store_n(&main_queue, queue, __ATOMIC_RELEASE);
  }
  return queue;
}

static void *copy_block(void *block);
static void release_block(void *block);

/// Whether the calling thread hands `queue`'s blocks to a run (or to the probe), and does so.
static bool handed_to_run(void *queue, void *block, bool delayed, int64_t delay) {
  void *context = main_queue_context;
  if (__builtin_expect(context == NULL, 1)) {
    // Outside work of a run (a block on another queue) queues for the main queue: the run takes
    // the block as its own, so that the main thread, waiting in the run, runs it.
    void *token = outside_token;
    if (__builtin_expect(token == NULL, 1) || queue != the_main_queue() || queue == NULL) return false;
    lockstep_main_queue_outside_observer outside =
      __atomic_load_n(&main_queue_outside_observer, __ATOMIC_ACQUIRE);
    void *copy = outside != NULL ? copy_block(block) : NULL;
    if (copy == NULL) return false;
    if (outside(token, copy, delayed, delay)) return true;
    release_block(copy);
    return false;
  }
  if (queue != the_main_queue() || queue == NULL) return false;
  if (context == &main_queue_probe_marker) {
    main_queue_probe_seen += 1;
    return false;
  }
  lockstep_main_queue_observer observer = __atomic_load_n(&main_queue_observer, __ATOMIC_ACQUIRE);
  if (observer == NULL) return false;
  block_copy_function copy =
    (block_copy_function)lockstep_next_definition((void **)&block_copy, "_Block_copy");
  if (copy == NULL) return false;
  observer(context, copy(block), delayed, delay);
  return true;
}

/// Nanoseconds from now until `when`, a `dispatch_time_t`, read on the clock it names (on the
/// calling thread: a run's job reads the run's clocks); -1 for "forever".
int64_t lockstep_dispatch_time_remaining(uint64_t when) {
  if (when == ~0ull) return -1;
  if (when == 0) return 0;
  clockid_t clock;
  int64_t deadline;
  if ((int64_t)when < 0) {
    if (when & (1ull << 62)) {
      // Wall time, negated (bits 63 and 62 set).
      clock = CLOCK_REALTIME;
      deadline = -(int64_t)when;
    } else {
      // Monotonic time, counting while the machine sleeps (bit 63 set).
      clock = CLOCK_BOOTTIME;
      deadline = (int64_t)(when & ~(1ull << 63));
    }
  } else {
    // Uptime.
    clock = CLOCK_MONOTONIC;
    deadline = (int64_t)when;
  }
  struct timespec now;
  if (clock_gettime(clock, &now) != 0) return 0;
  int64_t remaining = deadline - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
  return remaining > 0 ? remaining : 0;
}

static void *copy_block(void *block) {
  block_copy_function copy =
    (block_copy_function)lockstep_next_definition((void **)&block_copy, "_Block_copy");
  return copy != NULL ? copy(block) : NULL;
}

static void release_block(void *block) {
  block_release_function release =
    (block_release_function)lockstep_next_definition((void **)&block_release, "_Block_release");
  if (release) release(block);
}

/// The head of a block: its `invoke` function takes the block itself.
typedef struct lockstep_block_layout {
  void *isa;
  int flags;
  int reserved;
  void (*invoke)(void *block);
} lockstep_block_layout;

// A block with flags or a QoS: `dispatch_block_create` and its variants copy the block into one of
// libdispatch's, whose invoke function is `_dispatch_block_special_invoke` (an exported pointer)
// and whose captured "private data" follows the block's head: a magic number, then the flags.
// The overlay makes such blocks for `async(flags:)` (other than `.barrier` alone), `asyncAfter`
// and `DispatchGroup.notify` with flags or a QoS, and every `DispatchWorkItem`.

/// `DISPATCH_BLOCK_BARRIER`: `DispatchWorkItemFlags.barrier`.
static const unsigned long dispatch_block_barrier = 0x1;

/// The head of a block `dispatch_block_create` made, and the start of its private data.
typedef struct {
  lockstep_block_layout layout;
  const void *descriptor;
  unsigned long magic;  // 0xD159B10C
  unsigned long flags;
} private_data_block;

static void *const *block_special_invoke;

/// The flags `dispatch_block_create` gave `block`; 0 for any other block.
static unsigned long block_flags(void *block) {
  void *const *special = __atomic_load_n(&block_special_invoke, __ATOMIC_ACQUIRE);
  if (__builtin_expect(special == NULL, 0)) {
    special = dlsym(RTLD_DEFAULT, "_dispatch_block_special_invoke");
    if (special == NULL) return 0;
    __atomic_store_n(&block_special_invoke, special, __ATOMIC_RELEASE);
  }
  private_data_block *head = block;
  if (block == NULL || *special == NULL || (void *)head->layout.invoke != *special) return 0;
  return head->magic == 0xD159B10Cul ? head->flags : 0;
}

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

/// Runs an outside block on the thread its queue chose: blocks and threads it starts are the
/// run's outside work too. Then tells the run it returned.
static void run_outside_block(void *context) {
  outside_block *work = context;
  void *previous = outside_token;
  outside_token = work->token;
  void *running = work->token;
  if (work->waited) {
    // It has waited; now it runs, as a block queued with `async` by the work that waited.
    void *started = lockstep_outside_work_begin(NULL, lockstep_outside_async);
    if (started != NULL) running = started;
    if (started != NULL) lockstep_outside_work_end(work->token);
    outside_token = running;
  }
  ((lockstep_block_layout *)work->block)->invoke(work->block);
  if (work->group != NULL) {
    dispatch_group_leave(work->group);
    dispatch_object_function release = (dispatch_object_function)lockstep_next_definition(
      (void **)&dispatch_release_function, "dispatch_release");
    release(work->group);
  }
  outside_token = previous;
  release_block(work->block);
  lockstep_outside_work_end(running);
  free(work);
}

/// The token of new outside work started on the calling thread, for a block for `queue` (`NULL`
/// for a thread): from a run's job, or from outside work; `NULL` when the thread does neither.
void *lockstep_outside_work_begin(void *queue, int kind) {
  void *run = main_queue_context;
  void *parent = outside_token;
  if (__builtin_expect(run == NULL && parent == NULL, 1)) return NULL;
  if (run == &main_queue_probe_marker) return NULL;
  lockstep_outside_began began = __atomic_load_n(&outside_began, __ATOMIC_ACQUIRE);
  if (began == NULL) return NULL;
  const char *label = NULL;
  if (queue != NULL) {
    queue_label_function get_label = (queue_label_function)lockstep_next_definition(
      (void **)&queue_label, "dispatch_queue_get_label");
    if (get_label != NULL) label = get_label(queue);
  }
  return began(run, parent, kind, label, queue);
}

void lockstep_outside_work_end(void *token) {
  lockstep_outside_ended ended = __atomic_load_n(&outside_ended, __ATOMIC_ACQUIRE);
  if (ended != NULL && token != NULL) ended(token);
}

void *lockstep_outside_work_enter(void *token) {
  void *previous = outside_token;
  outside_token = token;
  return previous;
}

void *lockstep_outside_work_current(void) { return outside_token; }

bool lockstep_outside_work_possible(void) {
  void *run = main_queue_context;
  return (run != NULL && run != &main_queue_probe_marker) || outside_token != NULL;
}

/// `block` for `queue` as the run's outside work, ready for a `_f` call; `NULL` when it is not.
/// `barrier`: queued as a barrier whatever the block's flags say.
static outside_block *as_outside_work(void *queue, void *block, int kind, bool barrier) {
  if (queue == the_main_queue()) return NULL;
  void *token = lockstep_outside_work_begin(queue, kind);
  if (token == NULL) return NULL;
  outside_block *work = malloc(sizeof *work);
  void *copy = work != NULL ? copy_block(block) : NULL;
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
    .barrier = barrier || (block_flags(block) & dispatch_block_barrier) != 0,
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
  release_block(work->block);
  free(work);
}

/// Whether a run's job queued `block` for `queue` (not the main queue) after `delay`: the run
/// queues it once the delay has passed in its time.
static bool delayed_by_run(void *queue, void *block, int64_t delay) {
  void *run = main_queue_context;
  if (run == NULL || run == &main_queue_probe_marker || queue == the_main_queue()) return false;
  lockstep_delayed_block_observer observer =
    __atomic_load_n(&delayed_block_observer, __ATOMIC_ACQUIRE);
  dispatch_object_function retain = (dispatch_object_function)lockstep_next_definition(
    (void **)&dispatch_retain_function, "dispatch_retain");
  if (observer == NULL || retain == NULL) return false;
  void *copy = copy_block(block);
  if (copy == NULL) return false;
  retain(queue);
  observer(run, queue, copy, delay);
  return true;
}

void lockstep_dispatch_async_now(void *queue, void *block) {
  dispatch_async(queue, block);
  release_block(block);
  dispatch_object_function release = (dispatch_object_function)lockstep_next_definition(
    (void **)&dispatch_release_function, "dispatch_release");
  if (release != NULL) release(queue);
}

/// Whether the calling thread queued `block` for `queue` as the run's outside work (or handed it
/// to the run, for the main queue, serial: there a barrier is any block).
static bool async_of_run(void *queue, void *block, bool barrier) {
  if (handed_to_run(queue, block, false, 0)) return true;
  if (__builtin_expect(main_queue_context == NULL && outside_token == NULL, 1)) return false;
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
  void *made = create(dispatch_block_barrier, runner);  // takes a reference of its own
  release_block(runner);
  return made;
}

void dispatch_after(uint64_t when, void *queue, void *block) {
  if (__builtin_expect(main_queue_context != NULL, 0)) {
    int64_t delay = lockstep_dispatch_time_remaining(when);
    if (delay >= 0 && handed_to_run(queue, block, true, delay)) return;
    if (delay >= 0 && delayed_by_run(queue, block, delay)) return;
  }
  if (__builtin_expect(outside_token != NULL, 0) && when != ~0ull) {
    int64_t delay = lockstep_dispatch_time_remaining(when);
    if (delay >= 0 && handed_to_run(queue, block, true, delay)) return;
    // Outside work's delay is real: while it waits, the run reports no deadlock; once the block
    // runs, virtual time stands still until it returns.
    outside_block *work = as_outside_work(queue, block, lockstep_outside_after, false);
    if (work != NULL && work->barrier) {
      void *barrier = barrier_block(work);
      dispatch_after_function next_block = (dispatch_after_function)lockstep_next_definition(
        (void **)&next_dispatch_after, "dispatch_after");
      if (barrier != NULL) {
        next_block(when, queue, barrier);
        release_block(barrier);
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
  if (__builtin_expect(main_queue_context != NULL || outside_token != NULL, 0)) {
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
        release_block(barrier);
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

// Dispatch sources: their handlers run on the source's queue when the source says, not when they
// are set. A handler set from a run's job (or its outside work) is replaced by a block of
// Lockstep's that runs it as outside work. It is laid out as a global block by hand (the C target
// is built without blocks), never copied or freed by libdispatch, and kept for the process's life.

/// The head of a block laid out by hand as a global one: libdispatch never copies or frees it.
typedef struct {
  lockstep_block_layout layout;
  const void *descriptor;
} global_block_head;

static const struct {
  unsigned long reserved;
  unsigned long size;
} global_block_descriptor = {0, sizeof(global_block_head)};

static void *global_block_class;

/// The head of a global block that calls `invoke`; `false` where the blocks runtime has no class
/// for global blocks.
static bool make_global_block(global_block_head *head, void (*invoke)(void *block)) {
  void *block_class = __atomic_load_n(&global_block_class, __ATOMIC_ACQUIRE);
  if (block_class == NULL) {
    block_class = dlsym(RTLD_DEFAULT, "_NSConcreteGlobalBlock");
    __atomic_store_n(&global_block_class, block_class, __ATOMIC_RELEASE);
  }
  if (block_class == NULL) return false;
  *head = (global_block_head){
    .layout = {.isa = block_class, .flags = 1 << 28 /* BLOCK_IS_GLOBAL */, .invoke = invoke},
    .descriptor = &global_block_descriptor,
  };
  return true;
}

/// A handler set from a run, as a global block, and what it needs.
typedef struct {
  global_block_head head;
  void *handler;
  void *token;
  bool registration;
  /// For a registration handler: the work of the source's registration once the source was
  /// resumed, which holds virtual time still until the handler has run.
  void *resumed;
} source_handler_block;

typedef void (*source_handler_function)(void *source, void *handler);
static source_handler_function next_set_registration_handler;
static source_handler_function next_set_event_handler;

/// Runs a handler set from a run: a registration handler once, as a block that waited; an event
/// handler each time the source fires, as a block of the run's (and, for a signal, as the
/// delivery of the signals the run sent itself).
static void run_source_handler(void *block) {
  source_handler_block *wrapper = block;
  void *previous = outside_token;
  outside_token = wrapper->token;
  void *running = lockstep_outside_work_begin(
    NULL, wrapper->registration ? lockstep_outside_async : lockstep_outside_source_event);
  if (wrapper->registration) lockstep_outside_work_end(wrapper->token);
  if (running != NULL) outside_token = running;
  ((lockstep_block_layout *)wrapper->handler)->invoke(wrapper->handler);
  outside_token = previous;
  lockstep_outside_work_end(running);
  if (wrapper->registration) {
    lockstep_outside_work_end(__atomic_exchange_n(&wrapper->resumed, NULL, __ATOMIC_ACQ_REL));
  }
}

/// The sources whose registration handler was set from a run and that were not resumed yet.
enum { pending_registration_limit = 64 };
static struct {
  void *source;
  source_handler_block *wrapper;
} pending_registrations[pending_registration_limit];
static int pending_registration_count;
static pthread_mutex_t pending_registrations_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_pending_registration(void *source, source_handler_block *wrapper) {
  lockstep_private_mutex_lock(&pending_registrations_lock);
  if (pending_registration_count < pending_registration_limit) {
    pending_registrations[pending_registration_count].source = source;
    pending_registrations[pending_registration_count].wrapper = wrapper;
    __atomic_store_n(&pending_registration_count, pending_registration_count + 1, __ATOMIC_RELEASE);
  }
  lockstep_private_mutex_unlock(&pending_registrations_lock);
}

/// The wrapped registration handler of `source`, taken from the pending ones; `NULL` if none.
static source_handler_block *take_pending_registration(void *source) {
  if (__builtin_expect(__atomic_load_n(&pending_registration_count, __ATOMIC_ACQUIRE) == 0, 1)) {
    return NULL;
  }
  source_handler_block *wrapper = NULL;
  lockstep_private_mutex_lock(&pending_registrations_lock);
  for (int index = 0; index < pending_registration_count; index++) {
    if (pending_registrations[index].source != source) continue;
    wrapper = pending_registrations[index].wrapper;
    pending_registrations[index] = pending_registrations[pending_registration_count - 1];
    __atomic_store_n(&pending_registration_count, pending_registration_count - 1, __ATOMIC_RELEASE);
    break;
  }
  lockstep_private_mutex_unlock(&pending_registrations_lock);
  return wrapper;
}

/// A source whose registration handler the run waits for is resumed: its registration is on its
/// way, and holds virtual time still until the handler has run.
static void registration_resumed(void *object) {
  source_handler_block *wrapper = take_pending_registration(object);
  if (wrapper == NULL) return;
  void *previous = lockstep_outside_work_enter(wrapper->token);
  void *resumed = lockstep_outside_work_begin(NULL, lockstep_outside_async);
  lockstep_outside_work_enter(previous);
  __atomic_store_n(&wrapper->resumed, resumed, __ATOMIC_RELEASE);
}

static dispatch_object_function next_dispatch_resume;
static dispatch_object_function next_dispatch_activate;

void dispatch_resume(void *object) {
  registration_resumed(object);
  dispatch_object_function next =
    (dispatch_object_function)lockstep_next_definition((void **)&next_dispatch_resume, "dispatch_resume");
  next(object);
}

void dispatch_activate(void *object) {
  registration_resumed(object);
  dispatch_object_function next = (dispatch_object_function)lockstep_next_definition(
    (void **)&next_dispatch_activate, "dispatch_activate");
  next(object);
}

/// `handler` wrapped as outside work of the calling thread's run; `NULL` when it is not.
static void *source_handler(void *handler, bool registration) {
  if (handler == NULL || !lockstep_outside_work_possible()) return NULL;
  global_block_head head;
  if (!make_global_block(&head, run_source_handler)) return NULL;
  void *token = lockstep_outside_work_begin(
    NULL, registration ? lockstep_outside_source_registration : lockstep_outside_source_owner);
  if (token == NULL) return NULL;
  source_handler_block *wrapper = malloc(sizeof *wrapper);
  void *copy = wrapper != NULL ? copy_block(handler) : NULL;
  if (copy == NULL) {
    free(wrapper);
    if (registration) lockstep_outside_work_end(token);
    return NULL;
  }
  *wrapper = (source_handler_block){
    .head = head,
    .handler = copy,
    .token = token,
    .registration = registration,
    .resumed = NULL,
  };
  return wrapper;
}

void dispatch_source_set_registration_handler(void *source, void *handler) {
  void *wrapped = source_handler(handler, true);
  if (wrapped != NULL) note_pending_registration(source, wrapped);
  source_handler_function next = (source_handler_function)lockstep_next_definition(
    (void **)&next_set_registration_handler, "dispatch_source_set_registration_handler");
  next(source, wrapped != NULL ? wrapped : handler);
}

void dispatch_source_set_event_handler(void *source, void *handler) {
  void *wrapped = source_handler(handler, false);
  source_handler_function next = (source_handler_function)lockstep_next_definition(
    (void **)&next_set_event_handler, "dispatch_source_set_event_handler");
  next(source, wrapped != NULL ? wrapped : handler);
}

// Dispatch timer sources: `DispatchSourceTimer.schedule(deadline:repeating:)` reaches
// `dispatch_source_set_timer`. Set from a run's job (or its outside work), the timer is the run's:
// libdispatch's timer is disarmed, and the run re-arms it to fire at once each time its deadline
// comes in virtual time (`lockstep_timer_fire_now`), until the source is cancelled.

typedef void (*set_timer_function)(void *source, uint64_t start, uint64_t interval, uint64_t leeway);
static set_timer_function next_set_timer;
static dispatch_object_function next_source_cancel;
static lockstep_timer_observer timer_observer;
static lockstep_timer_cancel_observer timer_cancel_observer;

static set_timer_function set_timer(void) {
  return (set_timer_function)lockstep_next_definition((void **)&next_set_timer, "dispatch_source_set_timer");
}

void dispatch_source_set_timer(void *source, uint64_t start, uint64_t interval, uint64_t leeway) {
  if (__builtin_expect(lockstep_outside_work_possible(), 0)) {
    lockstep_timer_observer observer = __atomic_load_n(&timer_observer, __ATOMIC_ACQUIRE);
    int64_t delay = start == ~0ull ? -1 : lockstep_dispatch_time_remaining(start);
    void *run = main_queue_context;
    if (observer != NULL && delay >= 0
      && observer(run == &main_queue_probe_marker ? NULL : run, outside_token, source, delay,
        interval == ~0ull ? -1 : (int64_t)interval))
    {
      set_timer()(source, ~0ull, interval, leeway);  // disarmed: the run fires it
      return;
    }
  }
  set_timer()(source, start, interval, leeway);
}

void dispatch_source_cancel(void *source) {
  lockstep_timer_cancel_observer observer = __atomic_load_n(&timer_cancel_observer, __ATOMIC_ACQUIRE);
  if (observer != NULL) observer(source);
  dispatch_object_function next =
    (dispatch_object_function)lockstep_next_definition((void **)&next_source_cancel, "dispatch_source_cancel");
  next(source);
}

void lockstep_timer_fire_now(void *source) { set_timer()(source, 0, ~0ull, 0); }

void lockstep_timer_restore(void *source, int64_t delay, int64_t interval) {
  // An uptime deadline on the real monotonic clock, whatever clocks the calling thread reads.
  int64_t now = lockstep_real_clock_nanoseconds(CLOCK_MONOTONIC);
  uint64_t start = (uint64_t)(now + (delay > 0 ? delay : 0));
  set_timer()(source, start, interval < 0 ? ~0ull : (uint64_t)interval, 0);
}

void lockstep_dispatch_retain(void *object) {
  dispatch_object_function retain = (dispatch_object_function)lockstep_next_definition(
    (void **)&dispatch_retain_function, "dispatch_retain");
  retain(object);
}

void lockstep_dispatch_release(void *object) {
  dispatch_object_function release = (dispatch_object_function)lockstep_next_definition(
    (void **)&dispatch_release_function, "dispatch_release");
  release(object);
}

void lockstep_timer_set_observer(lockstep_timer_observer observer, lockstep_timer_cancel_observer cancel) {
  __atomic_store_n(&timer_cancel_observer, cancel, __ATOMIC_RELEASE);
  __atomic_store_n(&timer_observer, observer, __ATOMIC_RELEASE);
}

typedef int (*kill_function)(pid_t pid, int signal);
static kill_function next_kill;

static lockstep_fatal_signal_observer fatal_signal_observer;

/// Whether `signal`, sent to this process now, would end it: its disposition is the default one,
/// and that default is to terminate.
static bool ends_the_process(int signal) {
  switch (signal) {
  case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
  case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
    return false;
  default:
    break;
  }
  struct sigaction current;
  return sigaction(signal, NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO)
    && current.sa_handler == SIG_DFL;
}

int kill(pid_t pid, int signal) {
  if (signal != 0 && (pid == 0 || pid == getpid())) {
    // A signal that ends the process: a run's report must not be lost with it.
    lockstep_fatal_signal_observer fatal = __atomic_load_n(&fatal_signal_observer, __ATOMIC_ACQUIRE);
    if (__builtin_expect(fatal != NULL, 0) && ends_the_process(signal)) fatal(signal);
    // A signal to this process, which a Dispatch source of the run may be waiting for.
    if (__builtin_expect(lockstep_outside_work_possible(), 0)) {
      lockstep_outside_work_begin(NULL, lockstep_outside_signal);
    }
  }
  kill_function next = (kill_function)lockstep_next_definition((void **)&next_kill, "kill");
  return next(pid, signal);
}

void lockstep_fatal_signal_set_observer(lockstep_fatal_signal_observer observer) {
  __atomic_store_n(&fatal_signal_observer, observer, __ATOMIC_RELEASE);
}

void lockstep_outside_work_set_observer(
  lockstep_outside_began began, lockstep_outside_ended ended, lockstep_delayed_block_observer delayed)
{
  __atomic_store_n(&outside_began, began, __ATOMIC_RELEASE);
  __atomic_store_n(&outside_ended, ended, __ATOMIC_RELEASE);
  __atomic_store_n(&delayed_block_observer, delayed, __ATOMIC_RELEASE);
}

/// A global block that counts its calls, for `lockstep_dispatch_measure`.
typedef struct {
  global_block_head head;
  uint64_t count;
} counting_block;

static void count_call(void *block) {
  __atomic_add_fetch(&((counting_block *)block)->count, 1, __ATOMIC_RELAXED);
}

static void do_nothing(void *context) { (void)context; }

uint64_t lockstep_dispatch_measure(bool through_stand_in, int count) {
  typedef void *(*queue_create_function)(const char *label, void *attributes);
  typedef void (*dispatch_sync_f_function)(void *queue, void *context, dispatch_function work);
  static void *queue;
  static void *create_slot, *sync_slot;
  queue_create_function create =
    (queue_create_function)lockstep_next_definition(&create_slot, "dispatch_queue_create");
  dispatch_sync_f_function sync =
    (dispatch_sync_f_function)lockstep_next_definition(&sync_slot, "dispatch_sync_f");
  dispatch_async_function direct =
    (dispatch_async_function)lockstep_next_definition((void **)&next_dispatch_async, "dispatch_async");
  // Global (never copied): it lives on this stack until the queue has run every call.
  counting_block block = {.count = 0};
  if (create == NULL || sync == NULL || direct == NULL || !make_global_block(&block.head, count_call)) {
    return 0;
  }
  if (queue == NULL) queue = create("lockstep.bench.dispatch", NULL);
  for (int index = 0; index < count; index++) {
    if (through_stand_in) {
      dispatch_async(queue, &block);
    } else {
      direct(queue, &block);
    }
  }
  sync(queue, NULL, do_nothing);
  return __atomic_load_n(&block.count, __ATOMIC_RELAXED);
}

bool lockstep_main_queue_interposable(void) { return true; }

void lockstep_main_queue_run_block(void *block) {
  ((lockstep_block_layout *)block)->invoke(block);
  release_block(block);
}

void lockstep_main_queue_set_outside_observer(lockstep_main_queue_outside_observer observer) {
  __atomic_store_n(&main_queue_outside_observer, observer, __ATOMIC_RELEASE);
}

void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer) {
  __atomic_store_n(&main_queue_observer, observer, __ATOMIC_RELEASE);
}

void *lockstep_main_queue_enter(void *context) {
  void *previous = main_queue_context;
  main_queue_context = context;
  return previous;
}

void *lockstep_main_queue_current_run(void) {
  void *run = main_queue_context;
  return run == &main_queue_probe_marker ? NULL : run;
}

void *lockstep_main_queue_probe_begin(void) {
  main_queue_probe_seen = 0;
  return lockstep_main_queue_enter(&main_queue_probe_marker);
}

int lockstep_main_queue_probe_end(void *previous) {
  lockstep_main_queue_enter(previous);
  return main_queue_probe_seen;
}

#else

bool lockstep_main_queue_interposable(void) { return false; }
void *lockstep_outside_work_begin(void *queue, int kind) {
  (void)queue;
  (void)kind;
  return NULL;
}
void lockstep_outside_work_end(void *token) { (void)token; }
void *lockstep_outside_work_enter(void *token) { return token; }
void *lockstep_outside_work_current(void) { return NULL; }
bool lockstep_outside_work_possible(void) { return false; }
uint64_t lockstep_dispatch_measure(bool through_stand_in, int count) {
  (void)through_stand_in;
  (void)count;
  return 0;
}
void lockstep_dispatch_async_now(void *queue, void *block) {
  (void)queue;
  (void)block;
}
void lockstep_outside_work_set_observer(
  lockstep_outside_began began, lockstep_outside_ended ended, lockstep_delayed_block_observer delayed)
{
  (void)began;
  (void)ended;
  (void)delayed;
}
void lockstep_main_queue_run_block(void *block) { (void)block; }
void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer) { (void)observer; }
void lockstep_main_queue_set_outside_observer(lockstep_main_queue_outside_observer observer) {
  (void)observer;
}
void *lockstep_main_queue_enter(void *context) { return context; }
void *lockstep_main_queue_probe_begin(void) { return NULL; }
void *lockstep_main_queue_current_run(void) { return NULL; }
void lockstep_fatal_signal_set_observer(lockstep_fatal_signal_observer observer) { (void)observer; }
void lockstep_timer_fire_now(void *source) { (void)source; }
void lockstep_dispatch_retain(void *object) { (void)object; }
void lockstep_dispatch_release(void *object) { (void)object; }
void lockstep_timer_restore(void *source, int64_t delay, int64_t interval) {
  (void)source;
  (void)delay;
  (void)interval;
}
void lockstep_timer_set_observer(lockstep_timer_observer observer, lockstep_timer_cancel_observer cancel) {
  (void)observer;
  (void)cancel;
}
int lockstep_main_queue_probe_end(void *previous) {
  (void)previous;
  return 0;
}

#endif
