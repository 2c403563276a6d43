// Where a thread's code came from, by its frame records (`{caller's frame, return address}`):
// Swift code keeps frame pointers, and so does this target's C code but for its leaf functions,
// which call nothing. Reading a few records costs a few loads, where the C library's `backtrace`
// unwinds by the images' tables (tens of thousands of instructions, which each lock point an
// exploration stops at used to pay). Linux only, as the stand-ins that use it.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <pthread.h>
#endif

#include "Internal/FrameRecords.h"
#include "CallStacks.h"

#if defined(__linux__)

/// The calling thread's stack, looked up once per thread: frames are read only inside it.
static __thread uintptr_t stack_low;
static __thread uintptr_t stack_high;

static int stack_bounds(uintptr_t *low, uintptr_t *high) {
  if (stack_high == 0) {
    stack_high = 1;
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
      void *start;
      size_t size;
      if (pthread_attr_getstack(&attributes, &start, &size) == 0) {
        stack_low = (uintptr_t)start;
        stack_high = (uintptr_t)start + size;
      }
      pthread_attr_destroy(&attributes);
    }
  }
  *low = stack_low;
  *high = stack_high;
  return stack_high > stack_low;
}

// An asynchronous frame marks its caller's frame pointer with bit 60.
int lockstep_frame_record_callers(uintptr_t frame, uintptr_t *callers, int capacity) {
  if (capacity <= 0) return 0;
  callers[0] = ((uintptr_t *)frame)[1];
  int count = 1;
#if defined(__x86_64__) || defined(__aarch64__)
  uintptr_t low, high;
  if (!stack_bounds(&low, &high)) return count;
  while (count < capacity) {
    uintptr_t next = ((uintptr_t *)frame)[0] & ~((uintptr_t)1 << 60);
    if (next <= frame || next % sizeof(uintptr_t) != 0 || next < low || next + 2 * sizeof(uintptr_t) > high)
      break;
    frame = next;
    uintptr_t address = ((uintptr_t *)frame)[1];
    if (address == 0) break;
    callers[count++] = address;
  }
#endif
  return count;
}

__attribute__((noinline)) int lockstep_return_addresses(uintptr_t *addresses, int capacity) {
  return lockstep_frame_record_callers((uintptr_t)__builtin_frame_address(0), addresses, capacity);
}

#else

int lockstep_return_addresses(uintptr_t *addresses, int capacity) {
  (void)addresses;
  (void)capacity;
  return 0;
}

#endif
