// Which exploration's crash trail a thread records into (`CrashTrails.c`).
#ifndef LOCKSTEP_CRASH_TRAILS_H
#define LOCKSTEP_CRASH_TRAILS_H



/// Makes `trail` the crash trail the calling thread records into (`NULL`: none); returns the one it
/// had (`CrashTrails.c`).
void *lockstep_crash_trail_enter(void *trail);

/// The calling thread's crash trail, or `NULL`.
void *lockstep_crash_trail_current(void);

/// Remembers `trail` as the one whose schedule began last.
void lockstep_crash_trail_set_last(void *trail);

/// The trail whose schedule began last, or `NULL`.
void *lockstep_crash_trail_last(void);

#endif
