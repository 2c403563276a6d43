// Reading a thread's frame records, shared by the stand-ins that record where a call came from.
// Private to the target (not under include/).
#ifndef LOCKSTEP_FRAME_RECORDS_H
#define LOCKSTEP_FRAME_RECORDS_H

#include <stdint.h>

#if defined(__linux__)
/// The return addresses of the frames above the frame record at `frame` (its own return address
/// first), at most `capacity`, read inside the calling thread's stack only; how many were read.
int lockstep_frame_record_callers(uintptr_t frame, uintptr_t *callers, int capacity);
#endif

#endif
