// The exploration whose schedule began last, for a crash on a thread that runs none
// (`CrashTrails.c`); a thread's own trail is in its run context (`RunContext.h`).
#ifndef LOCKSTEP_CRASH_TRAILS_H
#define LOCKSTEP_CRASH_TRAILS_H

/// Remembers `trail` as the one whose schedule began last.
void lockstep_crash_trail_set_last(void *trail);

/// The trail whose schedule began last, or `NULL`.
void *lockstep_crash_trail_last(void);

#endif
