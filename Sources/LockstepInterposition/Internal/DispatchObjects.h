// What the Dispatch stand-ins share (`DispatchObjects.c` defines it): the main queue, blocks laid
// out by hand (the C target is built without blocks), and the time a `dispatch_time_t` is ahead.
// Private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_DISPATCH_OBJECTS_H
#define LOCKSTEP_INTERNAL_DISPATCH_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__linux__)

/// The head of a block: its `invoke` function takes the block itself.
typedef struct lockstep_block_layout {
  void *isa;
  int flags;
  int reserved;
  void (*invoke)(void *block);
} lockstep_block_layout;

/// The head of a block laid out by hand as a global one: libdispatch never copies or frees it.
typedef struct {
  lockstep_block_layout layout;
  const void *descriptor;
} lockstep_global_block_head;

/// `DISPATCH_BLOCK_BARRIER`: `DispatchWorkItemFlags.barrier`.
static const unsigned long lockstep_dispatch_block_barrier = 0x1;

/// libdispatch's main queue (`_dispatch_main_q`), looked up once.
void *lockstep_dispatch_main_queue(void);

/// A copy of `block` by the blocks runtime (`_Block_copy`); `NULL` where there is none.
void *lockstep_copy_block(void *block);

/// Releases `block` (`_Block_release`).
void lockstep_release_block(void *block);

/// The flags `dispatch_block_create` gave `block`; 0 for any other block.
unsigned long lockstep_block_flags(void *block);

/// The head of a global block that calls `invoke`; `false` where the blocks runtime has no class
/// for global blocks.
bool lockstep_make_global_block(lockstep_global_block_head *head, void (*invoke)(void *block));

/// Nanoseconds from now until `when`, a `dispatch_time_t`, read on the clock it names (on the
/// calling thread: a run's job reads the run's clocks); -1 for "forever".
int64_t lockstep_dispatch_time_remaining(uint64_t when);

/// libdispatch's calls that Lockstep stands in for and calls itself (the C target includes no
/// Dispatch header): `OutsideBlocks.c` and `BlockingWaits.c` define them.
void dispatch_async(void *queue, void *block);
void dispatch_group_leave(void *group);

#endif

#endif
