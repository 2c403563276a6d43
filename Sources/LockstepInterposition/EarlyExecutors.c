// Lockstep's executors installed before `main` in a Linux test process. Swift's executor factory
// (`_createExecutors`) is meant to be called before the first job is enqueued: it stores the two
// executors with plain stores, which a thread enqueueing a job at that moment could read half
// written. Before `main` of the test executable no Swift code has run and no other thread
// exists, so a constructor of the executable installs them then. The constructor calls into
// LockstepTesting (`lockstep_install_executors_before_main`, weak: present only where that module
// is linked) and only in a test process (`lockstep_in_test_process`), so no other program that
// links LockstepTesting has its executors replaced before it asks for a run. Elsewhere — Apple
// platforms, where XCTest loads a test bundle after the process started, other executables, a
// runtime linked statically — the first run installs them, as before.
#include "LockstepInterposition.h"

static bool installed_before_main = false;

bool lockstep_executors_installed_before_main(void) { return installed_before_main; }

#if defined(__linux__)

extern void lockstep_install_executors_before_main(void) __attribute__((weak));
extern char _swift_stdlib_Hashing_parameters __attribute__((weak));

// After the hashing constructor (101): the Swift code it calls must not hash before the seeds are set.
__attribute__((constructor(102))) static void lockstep_install_executors_early(void) {
  if (lockstep_install_executors_before_main == NULL) return;
  if (!lockstep_in_test_process()) return;
  // A runtime linked into the executable may not be initialized yet.
  if (&_swift_stdlib_Hashing_parameters == NULL
      || lockstep_lies_in_main_executable((uintptr_t)&_swift_stdlib_Hashing_parameters))
    return;
  lockstep_install_executors_before_main();
  installed_before_main = true;
}

#endif
