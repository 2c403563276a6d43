// Where the concurrency runtime's code lies, shared by the stand-ins that tell its frames and its
// calls from the code under test's. Private to the target (not under include/).
#ifndef LOCKSTEP_RUNTIME_IMAGE_H
#define LOCKSTEP_RUNTIME_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__linux__)
/// The loaded segments of the concurrency runtime (`libswift_Concurrency`), [start, end); both 0
/// until found, and where it is not a library of its own.
__attribute__((visibility("hidden"))) extern uintptr_t lockstep_runtime_start, lockstep_runtime_end;
__attribute__((visibility("hidden"))) extern bool lockstep_runtime_found;

/// Finds the runtime's segments, once.
__attribute__((visibility("hidden"))) void lockstep_runtime_image_find(void);

/// Whether `address` lies in the concurrency runtime's code: a load and two comparisons, once found.
static inline bool lockstep_in_runtime(const void *address) {
  if (__builtin_expect(!__atomic_load_n(&lockstep_runtime_found, __ATOMIC_ACQUIRE), 0)) {
    lockstep_runtime_image_find();
  }
  uintptr_t value = (uintptr_t)address;
  return value >= lockstep_runtime_start && value < lockstep_runtime_end;
}
#endif

#endif
