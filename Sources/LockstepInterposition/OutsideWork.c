// The outside-work token API: work a run's job (or its outside work) hands to another thread — a
// block for a queue other than the main queue, a source's handler, a thread, a signal — begins
// and ends here, and the run is told of both through the functions it set; a block a run's job
// queues after a delay for another queue is handed to the run instead, which queues it once the
// delay has passed in its time. It stands in for no call itself: the stand-ins of
// `OutsideBlocks.c`, `DispatchSources.c`, `Signals.c` and `ThreadStarts.c` call it. Linux only;
// elsewhere no work is tracked.
#if defined(__linux__)
  #define _GNU_SOURCE
#endif

#include "Internal/RunContext.h"
#include "Internal/DispatchObjects.h"
#include "Internal/NextDefinition.h"
#include "Internal/OutsideWork.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef void (*dispatch_object_function)(void *object);
typedef const char *(*queue_label_function)(void *queue);

static dispatch_object_function dispatch_retain_function;
static dispatch_object_function dispatch_release_function;
static queue_label_function queue_label;
static lockstep_outside_began outside_began;
static lockstep_outside_ended outside_ended;
static lockstep_delayed_block_observer delayed_block_observer;
static lockstep_outside_clocks outside_clocks;

/// The token of new outside work started on the calling thread, for a block for `queue` (`NULL`
/// for a thread): from a run's job, or from outside work; `NULL` when the thread does neither.
void *lockstep_outside_work_begin(void *queue, int kind) {
  void *run = lockstep_current_run();
  void *parent = lockstep_current_outside_token();
  if (__builtin_expect(run == NULL && parent == NULL, 1)) return NULL;
  if (lockstep_probing(lockstep_probing_main_queue)) return NULL;
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

bool lockstep_outside_work_delayed(void *queue, void *block, int64_t delay) {
  void *run = lockstep_current_run();
  void *parent = run == NULL ? lockstep_current_outside_token() : NULL;
  if ((run == NULL && parent == NULL) || queue == lockstep_dispatch_main_queue()) return false;
  lockstep_delayed_block_observer observer =
    __atomic_load_n(&delayed_block_observer, __ATOMIC_ACQUIRE);
  dispatch_object_function retain = (dispatch_object_function)lockstep_next_definition(
    (void **)&dispatch_retain_function, "dispatch_retain");
  dispatch_object_function release = (dispatch_object_function)lockstep_next_definition(
    (void **)&dispatch_release_function, "dispatch_release");
  if (observer == NULL || retain == NULL || release == NULL) return false;
  void *copy = lockstep_copy_block(block);
  if (copy == NULL) return false;
  retain(queue);
  if (observer(run, parent, queue, copy, delay)) return true;
  release(queue);
  lockstep_release_block(copy);
  return false;
}

lockstep_virtual_clocks *lockstep_outside_work_clocks(void *token) {
  lockstep_outside_clocks clocks_of = __atomic_load_n(&outside_clocks, __ATOMIC_ACQUIRE);
  return clocks_of == NULL || token == NULL ? NULL : clocks_of(token);
}

void lockstep_outside_work_set_clocks(lockstep_outside_clocks clocks) {
  __atomic_store_n(&outside_clocks, clocks, __ATOMIC_RELEASE);
}

void lockstep_outside_work_set_observer(
  lockstep_outside_began began, lockstep_outside_ended ended, lockstep_delayed_block_observer delayed)
{
  __atomic_store_n(&outside_began, began, __ATOMIC_RELEASE);
  __atomic_store_n(&outside_ended, ended, __ATOMIC_RELEASE);
  __atomic_store_n(&delayed_block_observer, delayed, __ATOMIC_RELEASE);
}

#else

void *lockstep_outside_work_begin(void *queue, int kind) {
  (void)queue;
  (void)kind;
  return NULL;
}
void lockstep_outside_work_end(void *token) { (void)token; }
lockstep_virtual_clocks *lockstep_outside_work_clocks(void *token) {
  (void)token;
  return NULL;
}
void lockstep_outside_work_set_clocks(lockstep_outside_clocks clocks) { (void)clocks; }
void lockstep_outside_work_set_observer(
  lockstep_outside_began began, lockstep_outside_ended ended, lockstep_delayed_block_observer delayed)
{
  (void)began;
  (void)ended;
  (void)delayed;
}

#endif
