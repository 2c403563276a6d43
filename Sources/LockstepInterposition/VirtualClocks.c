// The clock reads a deterministic run makes virtual: while one of a run's jobs runs on the run's
// thread, or its outside work (a block, a source's handler, a thread it started) on another,
// `clock_gettime`, `gettimeofday` and `time` read the run's virtual clocks; everywhere else they
// read the C library's. A definition of `clock_gettime` in
// the test executable is what the Swift runtime (`ContinuousClock.now`, `SuspendingClock.now`),
// Foundation (`Date()`) and Dispatch (`DispatchTime.now()`) call on Linux: the executable's
// symbol comes first in the dynamic linker's search order. Apple platforms bind each call to its
// library (two-level namespaces), so there nothing is defined here and runs keep real clocks.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <sys/syscall.h>
  #include <sys/time.h>
  #include <time.h>
  #include <unistd.h>
#endif

#include "Internal/NextDefinition.h"
#include "Internal/RunContext.h"
#include "LockstepInterposition.h"

static int virtual_now_state = -1;
static int clock_overrides_used = 0;

int lockstep_virtual_now_state(void) { return __atomic_load_n(&virtual_now_state, __ATOMIC_ACQUIRE); }

void lockstep_set_virtual_now_state(int state) {
  __atomic_store_n(&virtual_now_state, state, __ATOMIC_RELEASE);
}

bool lockstep_clock_overrides_used(void) {
  return __atomic_load_n(&clock_overrides_used, __ATOMIC_ACQUIRE) != 0;
}

void lockstep_note_clock_override(void) {
  __atomic_store_n(&clock_overrides_used, 1, __ATOMIC_RELEASE);
}

#if defined(__linux__)

/// A base not read yet: the clock's first read in the run reads the real clock.
#define LOCKSTEP_BASE_UNREAD (INT64_MIN + 1)

typedef int (*clock_gettime_function)(clockid_t, struct timespec *);
typedef int (*gettimeofday_function)(struct timeval *, void *);
typedef time_t (*time_function)(time_t *);

static clock_gettime_function next_clock_gettime;
static gettimeofday_function next_gettimeofday;
static time_function next_time;

static int real_clock_gettime(clockid_t clock, struct timespec *time) {
  clock_gettime_function next =
    (clock_gettime_function)lockstep_next_definition((void **)&next_clock_gettime, "clock_gettime");
  if (next) return next(clock, time);
  return (int)syscall(SYS_clock_gettime, clock, time);
}

static int64_t real_nanoseconds(clockid_t clock) {
  struct timespec now;
  if (real_clock_gettime(clock, &now) != 0) return -1;
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// The virtual reading of `clock` in nanoseconds, or -1 when the calling thread reads it for real.
/// Relaxed atomics: XCTest's waiter thread reads a run's clocks while the run's thread moves them
/// (`ExpectationWaits.c`); on x86-64 and arm64 these are plain loads and stores.
static int64_t virtual_nanoseconds(clockid_t clock) {
  // The calling thread's run context's clocks: set only around a run's job.
  lockstep_virtual_clocks *clocks = lockstep_thread.context.clocks;
  if (__builtin_expect(clocks == NULL, 1)) return -1;
  if (clock < 0 || clock >= LOCKSTEP_CLOCK_COUNT) return -1;
  int64_t base = __atomic_load_n(&clocks->base[clock], __ATOMIC_RELAXED);
  if (base == INT64_MIN) return -1;
  int64_t elapsed = __atomic_load_n(&clocks->elapsed, __ATOMIC_RELAXED);
  int64_t released_at = __atomic_load_n(&clocks->released_at, __ATOMIC_RELAXED);
  if (__builtin_expect(released_at != 0, 0)) {
    int64_t now = real_nanoseconds(CLOCK_MONOTONIC);
    if (now > released_at) elapsed += now - released_at;
  }
  if (__builtin_expect(base == LOCKSTEP_BASE_UNREAD, 0)) {
    // A monotonic clock starts where the real one stands when the run first reads it.
    int64_t now = real_nanoseconds(clock);
    if (now < 0) return -1;
    int64_t unread = LOCKSTEP_BASE_UNREAD;
    base = now - elapsed;
    if (!__atomic_compare_exchange_n(
          &clocks->base[clock], &unread, base, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    {
      base = unread;  // another thread read it first
    }
  }
  return base + elapsed;
}

int clock_gettime(clockid_t clock, struct timespec *time) {
  int64_t nanoseconds = virtual_nanoseconds(clock);
  if (__builtin_expect(nanoseconds < 0, 1)) return real_clock_gettime(clock, time);
  time->tv_sec = (time_t)(nanoseconds / 1000000000);
  time->tv_nsec = (long)(nanoseconds % 1000000000);
  return 0;
}

#if defined(__GLIBC__) && !__GLIBC_PREREQ(2, 31)
int gettimeofday(struct timeval *value, struct timezone *zone) {
#else
int gettimeofday(struct timeval *restrict value, void *restrict zone) {
#endif
  int64_t nanoseconds = virtual_nanoseconds(CLOCK_REALTIME);
  if (__builtin_expect(nanoseconds < 0, 1)) {
    gettimeofday_function next =
      (gettimeofday_function)lockstep_next_definition((void **)&next_gettimeofday, "gettimeofday");
    if (next) return next(value, (void *)zone);
    return (int)syscall(SYS_gettimeofday, value, zone);
  }
  value->tv_sec = (time_t)(nanoseconds / 1000000000);
  value->tv_usec = (suseconds_t)(nanoseconds % 1000000000 / 1000);
  return 0;
}

time_t time(time_t *result) {
  int64_t nanoseconds = virtual_nanoseconds(CLOCK_REALTIME);
  if (__builtin_expect(nanoseconds < 0, 1)) {
    time_function next = (time_function)lockstep_next_definition((void **)&next_time, "time");
    if (next) return next(result);
    struct timespec now;
    real_clock_gettime(CLOCK_REALTIME, &now);
    if (result) *result = now.tv_sec;
    return now.tv_sec;
  }
  time_t seconds = (time_t)(nanoseconds / 1000000000);
  if (result) *result = seconds;
  return seconds;
}

bool lockstep_clocks_interposable(void) { return true; }

int64_t lockstep_real_clock_nanoseconds(int clock) { return real_nanoseconds((clockid_t)clock); }

void lockstep_virtual_clocks_start(lockstep_virtual_clocks *clocks, int64_t wall_start) {
  for (int clock = 0; clock < LOCKSTEP_CLOCK_COUNT; clock++) clocks->base[clock] = INT64_MIN;
  // Read on first use: most runs read one clock or none, and a run costs microseconds.
  static const int monotonic[] = {
    CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME,
#if defined(CLOCK_BOOTTIME_ALARM)
    CLOCK_BOOTTIME_ALARM,
#endif
  };
  for (unsigned index = 0; index < sizeof monotonic / sizeof *monotonic; index++) {
    clocks->base[monotonic[index]] = LOCKSTEP_BASE_UNREAD;
  }
  static const int wall[] = {
    CLOCK_REALTIME, CLOCK_REALTIME_COARSE,
#if defined(CLOCK_REALTIME_ALARM)
    CLOCK_REALTIME_ALARM,
#endif
  };
  for (unsigned index = 0; index < sizeof wall / sizeof *wall; index++) {
    clocks->base[wall[index]] = wall_start;
  }
#if defined(CLOCK_TAI)
  // TAI keeps its real distance from the wall clock (the leap seconds), read once a process.
  static int64_t leap = INT64_MIN;
  int64_t known = __atomic_load_n(&leap, __ATOMIC_RELAXED);
  if (known == INT64_MIN) {
    int64_t tai = real_nanoseconds(CLOCK_TAI);
    int64_t realtime = real_nanoseconds(CLOCK_REALTIME);
    known = tai >= 0 && realtime >= 0 ? (tai - realtime + 500000000) / 1000000000 * 1000000000 : 0;
    __atomic_store_n(&leap, known, __ATOMIC_RELAXED);
  }
  clocks->base[CLOCK_TAI] = wall_start + known;
#endif
  clocks->elapsed = 0;
  clocks->released_at = 0;
}

void lockstep_virtual_clocks_release(lockstep_virtual_clocks *clocks) {
  int64_t now = real_nanoseconds(CLOCK_MONOTONIC);
  int64_t unset = 0;
  __atomic_compare_exchange_n(
    &clocks->released_at, &unset, now > 0 ? now : 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

#else

bool lockstep_clocks_interposable(void) { return false; }

int64_t lockstep_real_clock_nanoseconds(int clock) {
  (void)clock;
  return -1;
}

void lockstep_virtual_clocks_start(lockstep_virtual_clocks *clocks, int64_t wall_start) {
  for (int clock = 0; clock < LOCKSTEP_CLOCK_COUNT; clock++) clocks->base[clock] = INT64_MIN;
  (void)wall_start;
  clocks->elapsed = 0;
  clocks->released_at = 0;
}

void lockstep_virtual_clocks_release(lockstep_virtual_clocks *clocks) { (void)clocks; }

#endif
