// What only `lockstep-bench` calls: the stand-ins' own work, measured against the calls they stand
// in for. Not part of the umbrella header: the bench imports it as `LockstepInterposition.BenchHooks`.
#ifndef LOCKSTEP_BENCH_HOOKS_H
#define LOCKSTEP_BENCH_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/// The hook's own work for one creation outside runs, around a runtime that creates nothing
/// (what the bench measures; 0 inside a run).
uintptr_t lockstep_task_creation_measure_hook(size_t flags);

/// That runtime called directly: the bench's baseline for `lockstep_task_creation_measure_hook`.
uintptr_t lockstep_task_creation_measure_direct(size_t flags);

/// For the bench: queues `count` blocks on a serial queue of its own, outside any run, through the
/// `dispatch_async` stand-in or straight to libdispatch's, and waits until they ran; how many ran
/// (0 where nothing stands in).
uint64_t lockstep_dispatch_measure(bool through_stand_in, int count);

#endif
