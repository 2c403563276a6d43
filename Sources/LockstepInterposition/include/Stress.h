// What `checkLinearizability`'s stress runs need of C: sequentially consistent atomics, and
// moving a thread to a core of its own (`StressThreads.c`).
#ifndef LOCKSTEP_STRESS_H
#define LOCKSTEP_STRESS_H

#include <stdbool.h>
#include <stdint.h>

/// Adds `delta` to `*value` and returns what it held before: one read-modify-write, sequentially
/// consistent. For the counters of `checkLinearizability`'s stress runs, which order the calls of
/// tasks on real threads (Swift's `Atomic` needs macOS 15; this package supports older systems).
static inline int64_t lockstep_atomic_add(int64_t *value, int64_t delta) {
  return __atomic_fetch_add(value, delta, __ATOMIC_SEQ_CST);
}

/// Reads `*value` (sequentially consistent), as written by `lockstep_atomic_add` or
/// `lockstep_atomic_store`.
static inline int64_t lockstep_atomic_load(const int64_t *value) {
  return __atomic_load_n(value, __ATOMIC_SEQ_CST);
}

/// Writes `*value` (sequentially consistent).
static inline void lockstep_atomic_store(int64_t *value, int64_t new_value) {
  __atomic_store_n(value, new_value, __ATOMIC_SEQ_CST);
}

/// Writes `*value` with no ordering: for a word one thread writes as it goes and another thread
/// of an ended run may still write (a crash trail's step).
static inline void lockstep_atomic_store_relaxed(int64_t *value, int64_t new_value) {
  __atomic_store_n(value, new_value, __ATOMIC_RELAXED);
}

/// Moves the calling thread to the `party`-th (modulo their count) of the cores it may use, and
/// returns what gives them back to it (pass it to `lockstep_unpin`); `NULL` when it may use fewer
/// than two cores, or the system cannot move it (not Linux). For the start barrier of
/// `checkLinearizability`'s stress runs: tasks on one core never run at the same moment.
void *lockstep_pin_to_core(int party);

/// Gives the calling thread back the cores `lockstep_pin_to_core` took from it; `NULL` does
/// nothing.
void lockstep_unpin(void *saved);

#endif
