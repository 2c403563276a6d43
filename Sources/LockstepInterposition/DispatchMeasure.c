// For `lockstep-bench` alone (`BenchHooks.h`): the `dispatch_async` stand-in's own work outside
// runs, measured against libdispatch's call. It stands in for nothing and tells no run anything.
// Linux only; elsewhere it measures nothing.
#if defined(__linux__)
  #define _GNU_SOURCE
#endif

#include "BenchHooks.h"
#include "Internal/DispatchObjects.h"
#include "Internal/NextDefinition.h"

#if defined(__linux__)

typedef void (*dispatch_async_function)(void *queue, void *block);
typedef void (*dispatch_function)(void *context);

static dispatch_async_function next_dispatch_async;

/// A global block that counts its calls, for `lockstep_dispatch_measure`.
typedef struct {
  lockstep_global_block_head head;
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
  if (create == NULL || sync == NULL || direct == NULL || !lockstep_make_global_block(&block.head, count_call)) {
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

#else

uint64_t lockstep_dispatch_measure(bool through_stand_in, int count) {
  (void)through_stand_in;
  (void)count;
  return 0;
}

#endif
