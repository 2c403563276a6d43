// What Lockstep's Swift code asks of the C library calls it stands in for: the clocks a
// deterministic run makes virtual on its own thread, and the hashing parameters it sets before
// `main`. The definitions are Linux-only; elsewhere every function here reports "not in effect".
#ifndef LOCKSTEP_INTERPOSITION_H
#define LOCKSTEP_INTERPOSITION_H

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
} lockstep_virtual_clocks;

/// Whether this build stands in for the C library's clock reads (Linux only).
bool lockstep_clocks_interposable(void);

/// Sets every clock's base: the monotonic clocks start where the real ones stand when the run first
/// reads them; the wall clocks (`CLOCK_REALTIME`, its variants, `CLOCK_TAI`) start at `wall_start` nanoseconds
/// since 1970; CPU-time clocks stay real. `elapsed` becomes 0.
void lockstep_virtual_clocks_start(lockstep_virtual_clocks *clocks, int64_t wall_start);

/// Makes the calling thread read `clocks` (or the real clocks, for `NULL`); returns what it read
/// before.
lockstep_virtual_clocks *lockstep_virtual_clocks_enter(lockstep_virtual_clocks *clocks);

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

/// Whether Swift's hashing is deterministic in this process (the runtime's own parameters).
bool lockstep_hashing_is_deterministic(void);

/// What Lockstep did about hashing before `main`.
enum LockstepHashing {
  /// Not Linux, or the constructor has not run.
  lockstep_hashing_untouched = 0,
  /// Hashing was made deterministic.
  lockstep_hashing_set = 1,
  /// It already was (SWIFT_DETERMINISTIC_HASHING).
  lockstep_hashing_already = 2,
  /// LOCKSTEP_RANDOM_HASHING=1 asked for per-process seeds.
  lockstep_hashing_opted_out = 3,
  /// LockstepTesting is not part of the main executable: it may have been loaded late.
  lockstep_hashing_not_main_executable = 4,
  /// The runtime's parameters were not found.
  lockstep_hashing_no_runtime = 5,
};

/// What Lockstep did about hashing before `main` (Linux; `lockstep_hashing_untouched` elsewhere).
enum LockstepHashing lockstep_hashing_setup(void);

#endif
