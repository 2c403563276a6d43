// The main-queue hand-off as the other Dispatch stand-ins call it (`MainQueue.c` defines it).
// Private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_MAIN_QUEUE_H
#define LOCKSTEP_INTERNAL_MAIN_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__linux__)

/// Whether the calling thread hands `block`, queued for `queue` (after `delay` nanoseconds when
/// `delayed`), to a run (or counts it for the probe), and does so: `queue` is the main queue, and
/// the thread runs a run's job or outside work of a run.
bool lockstep_main_queue_hand_off(void *queue, void *block, bool delayed, int64_t delay);

#endif

#endif
