// Whether this process runs tests: the one rule of the constructors that act only in a test process
// (deterministic hashing, executors installed before `main`). On Linux, `swift test` builds every
// test target into one executable named `<Package>PackageTests.xctest` and runs it, for XCTest and
// for Swift Testing alike, and Swift Testing starts an exit test's process from that same path. So
// the executable's name, as it was started (`argv[0]`), tells a test process from any other
// program that links LockstepTesting. Linking the test frameworks tells nothing: LockstepTesting
// itself links XCTest and Swift Testing. Linux; elsewhere no process counts as one (it stands in
// for no call and tells a run nothing).
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <errno.h>
#endif
#include <string.h>

#include "LockstepInterposition.h"

bool lockstep_is_test_executable(const char *invocation) {
  static const char suffix[] = ".xctest";
  if (invocation == NULL) return false;
  size_t length = strlen(invocation);
  size_t suffix_length = sizeof suffix - 1;
  return length >= suffix_length && strcmp(invocation + length - suffix_length, suffix) == 0;
}

#if defined(__linux__)

bool lockstep_in_test_process(void) { return lockstep_is_test_executable(program_invocation_name); }

#else

bool lockstep_in_test_process(void) { return false; }

#endif
