// The locks a deterministic run's jobs take: `NSLock`, `NSRecursiveLock`, `NSCondition` and code
// that calls `pthread_mutex_lock` itself reach the C library's `pthread_mutex_lock`,
// `pthread_mutex_trylock` and `pthread_mutex_unlock`. While one of a run's jobs runs on the calling
// thread, a lock the code under test takes (its caller lies outside the toolchain's and the
// system's libraries) is told to the run first: a scheduling point, where the run may park the job
// and run another (`LockPoints.swift`); its unlock is told after it. Locks the runtime, Foundation
// and the C library take for themselves are counted per thread, never told: a job is not stopped
// while it holds one. Everywhere else each call goes on to the C library unchanged. Linux only,
// as the other stand-ins.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <errno.h>
  #include <pthread.h>
  #include <string.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/NextDefinition.h"
#include "Internal/RuntimeImage.h"
#include "Internal/LockCallers.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef int (*mutex_function)(pthread_mutex_t *mutex);

static mutex_function next_lock;
static mutex_function next_trylock;
static mutex_function next_unlock;
static lockstep_lock_observer lock_observer;

/// The locks of the runtime, Foundation or the C library the calling thread holds, taken while it
/// ran a run's job: the run does not stop a job that holds one (another job would block on it).
static __thread int system_locks_held;

// Whether a caller's code is the code under test, by return address: a small table, filled once
// per address. An entry is the address shifted left by 2 with its answer in the low bits.
enum { caller_unknown = 0, caller_system = 1, caller_tested = 2 };
#define CALLER_SLOTS 512
#define CALLER_PROBES 8
static uint64_t callers[CALLER_SLOTS];
/// The directories of the toolchain's and the C library's images, found once.
static char toolchain_directory[512];
static char c_library_directory[512];
static int directories_found;

static void directory_of(const void *address, char *directory, size_t size) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == NULL) return;
  const char *slash = strrchr(info.dli_fname, '/');
  size_t length = slash == NULL ? 0 : (size_t)(slash - info.dli_fname) + 1;
  if (length == 0 || length >= size) return;
  memcpy(directory, info.dli_fname, length);
  directory[length] = 0;
}

static bool starts_with(const char *text, const char *prefix) {
  return prefix[0] != 0 && strncmp(text, prefix, strlen(prefix)) == 0;
}

static int classify(const void *caller) {
  if (!__atomic_load_n(&directories_found, __ATOMIC_ACQUIRE)) {
    void *runtime = dlsym(RTLD_DEFAULT, "swift_retain");
    if (runtime != NULL) directory_of(runtime, toolchain_directory, sizeof toolchain_directory);
    // The C library's own definition: under a sanitizer the next one is its interceptor, which
    // lives in the test executable itself.
    void *c_library = dlsym(RTLD_NEXT, "pthread_mutex_unlock");
    if (c_library != NULL) directory_of(c_library, c_library_directory, sizeof c_library_directory);
    __atomic_store_n(&directories_found, 1, __ATOMIC_RELEASE);
  }
  Dl_info info;
  if (dladdr(caller, &info) == 0 || info.dli_fname == NULL) return caller_system;
  const char *path = info.dli_fname;
  if (starts_with(path, toolchain_directory) || starts_with(path, c_library_directory)
    || starts_with(path, "/lib/") || starts_with(path, "/lib64/") || starts_with(path, "/usr/lib/")
    || strstr(path, "libFoundation") != NULL || strstr(path, "libdispatch") != NULL
    || strstr(path, "libswift") != NULL || strstr(path, "libXCTest") != NULL)
  {
    return caller_system;
  }
  return caller_tested;
}

// `NSLocking`'s `lock()` and `unlock()` called through the protocol (its `withLock`, generic code)
// reach the C library from Foundation's witness thunk: the caller that matters is the thunk's.
// Its return addresses are found once, by calling each lock class through the protocol
// (`lockstep_locks_probe`).
#define THUNK_SLOTS 8
static uintptr_t thunk_returns[THUNK_SLOTS];
static int thunk_count;
static __thread bool probing;

static void note_probe(const void *caller) {
  Dl_info info;
  if (dladdr(caller, &info) == 0 || info.dli_fname == NULL || strstr(info.dli_fname, "libFoundation") == NULL) {
    return;
  }
  uintptr_t address = (uintptr_t)caller;
  int count = __atomic_load_n(&thunk_count, __ATOMIC_ACQUIRE);
  for (int index = 0; index < count; index++) {
    if (thunk_returns[index] == address) return;
  }
  if (count < THUNK_SLOTS) {
    thunk_returns[count] = address;
    __atomic_store_n(&thunk_count, count + 1, __ATOMIC_RELEASE);
  }
}

/// The caller of Foundation's witness thunk, when `caller` is in one and `frame` (the calling
/// function's frame address) holds the thunk's frame record; otherwise `caller`.
static const void *past_thunk(const void *caller, void *const *frame) {
  int count = __atomic_load_n(&thunk_count, __ATOMIC_ACQUIRE);
  for (int index = 0; index < count; index++) {
    if (thunk_returns[index] != (uintptr_t)caller) continue;
    // The frame record under this one is the thunk's: the lock methods between tail-call.
    void *const *thunk = (void *const *)frame[0];
    if (thunk == NULL || (uintptr_t)thunk <= (uintptr_t)frame
      || (uintptr_t)thunk - (uintptr_t)frame > (1u << 20))
    {
      return caller;
    }
    return thunk[1];
  }
  return caller;
}

static int caller_kind(const void *caller) {
  uint64_t address = (uint64_t)(uintptr_t)caller;
  size_t home = (size_t)((address >> 4) ^ (address >> 13)) % CALLER_SLOTS;
  // Up to CALLER_PROBES slots from its home: two hot callers that share a home would otherwise
  // evict each other on every call, and each miss costs a `dladdr`.
  size_t free_slot = home;
  bool found_free = false;
  for (size_t probe = 0; probe < CALLER_PROBES; probe++) {
    size_t slot = (home + probe) % CALLER_SLOTS;
    uint64_t entry = __atomic_load_n(&callers[slot], __ATOMIC_RELAXED);
    if ((entry >> 2) == address) return (int)(entry & 3);
    if (entry == 0 && !found_free) {
      free_slot = slot;
      found_free = true;
    }
  }
  int kind = classify(caller);
  __atomic_store_n(&callers[free_slot], (address << 2) | (uint64_t)kind, __ATOMIC_RELAXED);
  return kind;
}

static mutex_function lock_function(void) {
  return (mutex_function)lockstep_next_definition((void **)&next_lock, "pthread_mutex_lock");
}

static mutex_function unlock_function(void) {
  return (mutex_function)lockstep_next_definition((void **)&next_unlock, "pthread_mutex_unlock");
}

static bool is_recursive(pthread_mutex_t *mutex) {
  #if defined(__GLIBC__)
  return (mutex->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP;
  #else
  (void)mutex;
  return false;
  #endif
}

/// Tells the run of the calling thread's job of a lock call of the code under test; whether the
/// call goes on to the C library (`false`: the run is over and another of its threads holds the
/// lock: the call returns without it, so that no thread stays blocked for good).
static bool tell(void *run, pthread_mutex_t *mutex, int event, const void *caller) {
  lockstep_lock_observer observer = __atomic_load_n(&lock_observer, __ATOMIC_ACQUIRE);
  if (observer == NULL) return true;
  int flags = (system_locks_held > 0 ? lockstep_lock_holds_system_lock : 0)
    | (is_recursive(mutex) ? lockstep_lock_recursive : 0);
  return observer(run, mutex, event, flags, (uintptr_t)pthread_self(), (uintptr_t)caller) == 0;
}

/// A `lock` (or, `tries`, a `trylock`) of `mutex` returning to `returned_to`, from a function
/// whose frame record is `frame`. Inlined, so that the frame stays the caller's.
static inline __attribute__((always_inline)) int take_mutex(
  mutex_function next, pthread_mutex_t *mutex, bool tries, const void *returned_to, void *const *frame)
{
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1)) {
    if (__builtin_expect(probing, 0)) note_probe(returned_to);
    return next(mutex);
  }
  // The runtime's own locks (a task's status records) are the system's, without a lookup.
  const void *caller = lockstep_in_runtime(returned_to) ? NULL : past_thunk(returned_to, frame);
  if (caller == NULL || caller_kind(caller) != caller_tested) {
    int result = next(mutex);
    if (result == 0) system_locks_held++;
    return result;
  }
  if (!tell(run, mutex, tries ? lockstep_lock_event_try : lockstep_lock_event_lock, caller)) {
    return tries ? EBUSY : 0;
  }
  int result = next(mutex);
  if (tries && result == 0) tell(run, mutex, lockstep_lock_event_taken, caller);
  return result;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) {
  return take_mutex(
    lock_function(), mutex, false, __builtin_return_address(0), __builtin_frame_address(0));
}

int pthread_mutex_trylock(pthread_mutex_t *mutex) {
  mutex_function next =
    (mutex_function)lockstep_next_definition((void **)&next_trylock, "pthread_mutex_trylock");
  return take_mutex(next, mutex, true, __builtin_return_address(0), __builtin_frame_address(0));
}

int pthread_mutex_unlock(pthread_mutex_t *mutex) {
  mutex_function next = unlock_function();
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1)) {
    if (__builtin_expect(probing, 0)) note_probe(__builtin_return_address(0));
    return next(mutex);
  }
  const void *returned_to = __builtin_return_address(0);
  const void *caller =
    lockstep_in_runtime(returned_to) ? NULL : past_thunk(returned_to, __builtin_frame_address(0));
  int result = next(mutex);
  if (caller == NULL || caller_kind(caller) != caller_tested) {
    if (result == 0 && system_locks_held > 0) system_locks_held--;
    return result;
  }
  tell(run, mutex, lockstep_lock_event_unlock, caller);
  return result;
}

// Read-write locks are seen, not scheduled: the run is told that the code under test took one,
// so that an exploration does not claim it interleaved everything.

typedef int (*rwlock_function)(pthread_rwlock_t *lock);
static rwlock_function next_read_lock;
static rwlock_function next_write_lock;

static void tell_unscheduled(void *lock, const void *caller) {
  void *run = lockstep_current_run();
  if (__builtin_expect(run == NULL, 1) || caller_kind(caller) != caller_tested) return;
  lockstep_lock_observer observer = __atomic_load_n(&lock_observer, __ATOMIC_ACQUIRE);
  if (observer != NULL) {
    observer(run, lock, lockstep_lock_event_unscheduled, 0, (uintptr_t)pthread_self(), (uintptr_t)caller);
  }
}

int pthread_rwlock_rdlock(pthread_rwlock_t *lock) {
  rwlock_function next =
    (rwlock_function)lockstep_next_definition((void **)&next_read_lock, "pthread_rwlock_rdlock");
  tell_unscheduled(lock, __builtin_return_address(0));
  return next(lock);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *lock) {
  rwlock_function next =
    (rwlock_function)lockstep_next_definition((void **)&next_write_lock, "pthread_rwlock_wrlock");
  tell_unscheduled(lock, __builtin_return_address(0));
  return next(lock);
}

/// `tell` for the condition calls (`ConditionCalls.c`).
bool lockstep_lock_tell(void *run, void *mutex, int event, const void *caller) {
  return tell(run, (pthread_mutex_t *)mutex, event, caller);
}

bool lockstep_lock_caller_is_tested(const void *caller) { return caller_kind(caller) == caller_tested; }

void lockstep_locks_set_observer(lockstep_lock_observer observer) {
  __atomic_store_n(&lock_observer, observer, __ATOMIC_RELEASE);
}

void lockstep_locks_job_starts(void) { system_locks_held = 0; }

void lockstep_locks_probe(bool on) { probing = on; }

/// `lockstep_next_definition` out of line: the private lock calls below keep no frame of their
/// own (its name buffer would be one) and tail-call the C library.
static __attribute__((noinline)) mutex_function look_up(void **slot, const char *name) {
  return (mutex_function)lockstep_next_definition(slot, name);
}

int lockstep_private_mutex_lock(void *mutex) {
  mutex_function next = __atomic_load_n(&next_lock, __ATOMIC_ACQUIRE);
  if (__builtin_expect(next == NULL, 0)) next = look_up((void **)&next_lock, "pthread_mutex_lock");
  return next((pthread_mutex_t *)mutex);
}

int lockstep_private_mutex_unlock(void *mutex) {
  mutex_function next = __atomic_load_n(&next_unlock, __ATOMIC_ACQUIRE);
  if (__builtin_expect(next == NULL, 0)) next = look_up((void **)&next_unlock, "pthread_mutex_unlock");
  return next((pthread_mutex_t *)mutex);
}

#else

  #include <pthread.h>

void lockstep_locks_set_observer(lockstep_lock_observer observer) { (void)observer; }
void lockstep_locks_job_starts(void) {}
void lockstep_locks_probe(bool on) { (void)on; }
int lockstep_private_mutex_lock(void *mutex) { return pthread_mutex_lock((pthread_mutex_t *)mutex); }
int lockstep_private_mutex_unlock(void *mutex) { return pthread_mutex_unlock((pthread_mutex_t *)mutex); }

#endif
