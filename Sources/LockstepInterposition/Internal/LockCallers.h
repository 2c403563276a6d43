// What the lock stand-ins (`LockCalls.c`) offer the condition stand-ins (`ConditionCalls.c`): who
// called, and telling the run of a job's lock event. Private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_LOCK_CALLERS_H
#define LOCKSTEP_INTERNAL_LOCK_CALLERS_H

#include <stdbool.h>

#if defined(__linux__)

/// Whether the code at return address `caller` is the code under test (outside the toolchain's and
/// the system's libraries).
bool lockstep_lock_caller_is_tested(const void *caller);

/// Tells `run`, whose job runs on the calling thread, of lock event `event` (a
/// `lockstep_lock_event_*` constant) of the code under test on `mutex`, called from `caller`;
/// whether the call goes on to the C library.
bool lockstep_lock_tell(void *run, void *mutex, int event, const void *caller);

#endif

#endif
