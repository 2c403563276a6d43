// What the outside-work token API offers the Dispatch stand-ins beyond `Dispatch.h`
// (`OutsideWork.c` defines it). Private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_OUTSIDE_WORK_H
#define LOCKSTEP_INTERNAL_OUTSIDE_WORK_H

#include <stdbool.h>
#include <stdint.h>

#include "Clocks.h"

/// The virtual clocks outside work `token` reads (its run's), or `NULL` for the real ones.
lockstep_virtual_clocks *lockstep_outside_work_clocks(void *token);

#if defined(__linux__)

/// Whether a run's job queued `block` for `queue` (not the main queue) after `delay`, and the run
/// took it: the run queues it once the delay has passed in its time.
bool lockstep_outside_work_delayed(void *queue, void *block, int64_t delay);

#endif

#endif
