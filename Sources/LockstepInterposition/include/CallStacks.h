// The calling thread's return addresses, read from its frame records: what a report shows of
// where a parked job waits.
#ifndef LOCKSTEP_CALL_STACKS_H
#define LOCKSTEP_CALL_STACKS_H

#include <stdint.h>

/// The calling thread's return addresses, innermost first (its caller's first), at most
/// `capacity`; how many were read (Linux; 0 elsewhere).
int lockstep_return_addresses(uintptr_t *addresses, int capacity);

#endif
