// What the Dispatch stand-ins share: the main queue, the blocks runtime's copy and release, the
// flags `dispatch_block_create` gives a block, global blocks laid out by hand, and the time from
// now to a `dispatch_time_t`. It stands in for nothing and tells the run nothing. Linux only, as
// the stand-ins that use it.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <time.h>
#endif

#include "Internal/DispatchObjects.h"
#include "Internal/NextDefinition.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef void *(*block_copy_function)(const void *block);
typedef void (*block_release_function)(const void *block);
typedef void (*dispatch_object_function)(void *object);

static block_copy_function block_copy;
static block_release_function block_release;
static dispatch_object_function dispatch_retain_function;
static dispatch_object_function dispatch_release_function;
static void *main_queue;

void *lockstep_dispatch_main_queue(void) {
  void *queue = __atomic_load_n(&main_queue, __ATOMIC_ACQUIRE);
  if (__builtin_expect(queue == NULL, 0)) {
    queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
    __atomic_store_n(&main_queue, queue, __ATOMIC_RELEASE);
  }
  return queue;
}

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

void *lockstep_copy_block(void *block) {
  block_copy_function copy =
    (block_copy_function)lockstep_next_definition((void **)&block_copy, "_Block_copy");
  return copy != NULL ? copy(block) : NULL;
}

void lockstep_release_block(void *block) {
  block_release_function release =
    (block_release_function)lockstep_next_definition((void **)&block_release, "_Block_release");
  if (release) release(block);
}

// A block with flags or a QoS: `dispatch_block_create` and its variants copy the block into one of
// libdispatch's, whose invoke function is `_dispatch_block_special_invoke` (an exported pointer)
// and whose captured "private data" follows the block's head: a magic number, then the flags.
// The overlay makes such blocks for `async(flags:)` (other than `.barrier` alone), `asyncAfter`
// and `DispatchGroup.notify` with flags or a QoS, and every `DispatchWorkItem`.

/// The head of a block `dispatch_block_create` made, and the start of its private data.
typedef struct {
  lockstep_block_layout layout;
  const void *descriptor;
  unsigned long magic;  // 0xD159B10C
  unsigned long flags;
} private_data_block;

static void *const *block_special_invoke;

/// The flags `dispatch_block_create` gave `block`; 0 for any other block.
unsigned long lockstep_block_flags(void *block) {
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

static const struct {
  unsigned long reserved;
  unsigned long size;
} global_block_descriptor = {0, sizeof(lockstep_global_block_head)};

static void *global_block_class;

bool lockstep_make_global_block(lockstep_global_block_head *head, void (*invoke)(void *block)) {
  void *block_class = __atomic_load_n(&global_block_class, __ATOMIC_ACQUIRE);
  if (block_class == NULL) {
    block_class = dlsym(RTLD_DEFAULT, "_NSConcreteGlobalBlock");
    __atomic_store_n(&global_block_class, block_class, __ATOMIC_RELEASE);
  }
  if (block_class == NULL) return false;
  *head = (lockstep_global_block_head){
    .layout = {.isa = block_class, .flags = 1 << 28 /* BLOCK_IS_GLOBAL */, .invoke = invoke},
    .descriptor = &global_block_descriptor,
  };
  return true;
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

#else

void lockstep_dispatch_retain(void *object) { (void)object; }
void lockstep_dispatch_release(void *object) { (void)object; }

#endif
