// What Lockstep knows of the process it runs in: whether it runs tests, what it did about hashing
// and the executors before `main` (`TestProcess.c`, `DeterministicHashing.c`, `EarlyExecutors.c`),
// and the signals that would end it (`Signals.c`).
#ifndef LOCKSTEP_PROCESS_H
#define LOCKSTEP_PROCESS_H

#include <stdbool.h>
#include <stdint.h>

/// Whether a process started as `invocation` (its `argv[0]`) runs tests: the executable is a test
/// bundle, `*.xctest`, as `swift test` builds and runs it on Linux.
bool lockstep_is_test_executable(const char *invocation);

/// Whether this process runs tests (Linux; `false` elsewhere).
bool lockstep_in_test_process(void);

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
  /// The runtime is linked into the executable (`--static-swift-stdlib`): its initializer runs
  /// after Lockstep's.
  lockstep_hashing_static_runtime = 6,
  /// Not a test process (`lockstep_in_test_process`): other programs keep per-process seeds.
  lockstep_hashing_not_a_test_process = 7,
};

/// What Lockstep did about hashing before `main` (Linux; `lockstep_hashing_untouched` elsewhere).
enum LockstepHashing lockstep_hashing_setup(void);

/// Whether `address` lies in the main executable (Linux; `false` elsewhere).
bool lockstep_lies_in_main_executable(uintptr_t address);

/// Whether Lockstep's executors were installed before `main` (a Linux test process).
bool lockstep_executors_installed_before_main(void);

/// The process sends itself `signal`, whose disposition ends the process (`kill`).
typedef void (*lockstep_fatal_signal_observer)(int signal);

/// Sets the function told of signals that end the process (once); it writes what must not be lost.
void lockstep_fatal_signal_set_observer(lockstep_fatal_signal_observer observer);

#endif
