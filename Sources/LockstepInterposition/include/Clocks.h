// The clocks a deterministic run makes virtual on the threads that run its jobs (`VirtualClocks.c`),
// and what a run asks of them; a thread reads the clocks of its run context (`RunContext.h`).
#ifndef LOCKSTEP_CLOCKS_H
#define LOCKSTEP_CLOCKS_H

#include <stdbool.h>
#include <stdint.h>

/// The number of clock ids a run's virtual clocks cover (Linux's 0 to 11).
#define LOCKSTEP_CLOCK_COUNT 12

/// The clocks of one deterministic run: a clock read on the run's thread while one of the run's
/// jobs runs reads `base[clock] + elapsed` nanoseconds.
typedef struct lockstep_virtual_clocks {
  /// What each clock reads at virtual time zero; `INT64_MIN` for a clock that stays real,
  /// `INT64_MIN + 1` for one the run has not read yet.
  int64_t base[LOCKSTEP_CLOCK_COUNT];
  /// The run's virtual time, in nanoseconds.
  int64_t elapsed;
  /// The real monotonic instant at which the run let its clocks go (it is over while a thread of
  /// it still reads them), 0 before: from then on they move on in real time.
  int64_t released_at;
} lockstep_virtual_clocks;

/// Whether this build stands in for the C library's clock reads (Linux only).
bool lockstep_clocks_interposable(void);

/// Sets every clock's base: the monotonic clocks start where the real ones stand when the run first
/// reads them; the wall clocks (`CLOCK_REALTIME`, its variants, `CLOCK_TAI`) start at `wall_start` nanoseconds
/// since 1970; CPU-time clocks stay real. `elapsed` becomes 0.
void lockstep_virtual_clocks_start(lockstep_virtual_clocks *clocks, int64_t wall_start);

/// Moves `clocks` to `elapsed` nanoseconds of virtual time (an atomic store: XCTest's waiter
/// thread may read them meanwhile).
static inline void lockstep_virtual_clocks_set_elapsed(lockstep_virtual_clocks *clocks, int64_t elapsed) {
  __atomic_store_n(&clocks->elapsed, elapsed, __ATOMIC_RELAXED);
}

/// Lets `clocks` go: the run is over, and every thread still reading them (a job the run gave up,
/// blocked in a wait) reads them moving on in real time from where they stand, so that its own
/// timeouts pass.
void lockstep_virtual_clocks_release(lockstep_virtual_clocks *clocks);

/// The real reading of `clock` in nanoseconds, whatever the calling thread reads; -1 on error.
int64_t lockstep_real_clock_nanoseconds(int clock);

/// Whether runs read virtual now in this process: -1 not known yet, 0 no, 1 yes. A plain load, so
/// that a run asks it without the once-check of a lazy Swift global (a few hundred instructions on
/// Linux).
int lockstep_virtual_now_state(void);
void lockstep_set_virtual_now_state(int state);

/// Whether a test ever set a run's clocks for a scope (a start date, the real clocks): until then
/// a run reads no task-local value to learn them.
bool lockstep_clock_overrides_used(void);
void lockstep_note_clock_override(void);

#endif
