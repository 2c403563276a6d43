// Deterministic hashing for every Linux test process that links LockstepTesting, as if the
// process had started with SWIFT_DETERMINISTIC_HASHING=1, so that code iterating a Set or a
// Dictionary does so in the same order in every process and one seed gives one schedule. Only in a
// test process (`lockstep_in_test_process`, `TestProcess.c`): any other program that links
// LockstepTesting, by mistake or as a tool, keeps Swift's per-process seeds, which protect hash
// tables built from untrusted input against hash flooding.
//
// The Swift runtime keeps its hashing parameters in an exported global that its own static
// initializer fills and that every hash reads. Changing them is safe only while no hash table
// exists, since a table built with the old seeds would be looked up with the new ones. Before
// `main` of an executable none does: Swift has no load-time initializers (globals are initialized
// lazily, on first use, from `main` on), so the only code that runs earlier is the C and C++
// constructors of the loaded libraries, and those of the runtime, Foundation, Dispatch, XCTest and
// Swift Testing build no Swift Set or Dictionary. So the parameters are set from a constructor,
// and only when that constructor belongs to the main executable: a library opened later (a test
// bundle, as XCTest loads on Apple platforms) runs its constructors after Swift code ran.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <link.h>
  #include <stdlib.h>
#endif

#include "LockstepInterposition.h"

static enum LockstepHashing hashing_setup = lockstep_hashing_untouched;

enum LockstepHashing lockstep_hashing_setup(void) { return hashing_setup; }

#if defined(__linux__)

/// The runtime's hashing parameters (`_SwiftHashingParameters` in the runtime's shims).
struct lockstep_hashing_parameters {
  uint64_t seed0;
  uint64_t seed1;
  bool deterministic;
};
extern struct lockstep_hashing_parameters _swift_stdlib_Hashing_parameters __attribute__((weak));

static int lies_in_main_executable(struct dl_phdr_info *info, size_t size, void *data);

bool lockstep_hashing_is_deterministic(void) {
  return &_swift_stdlib_Hashing_parameters != NULL
    && _swift_stdlib_Hashing_parameters.deterministic;
}

bool lockstep_lies_in_main_executable(uintptr_t address) {
  return dl_iterate_phdr(lies_in_main_executable, &address) == 1;
}

/// 1 when the address `data` points to lies in the main executable (the first object
/// `dl_iterate_phdr` reports), 2 otherwise.
static int lies_in_main_executable(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t address = *(uintptr_t *)data;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (address >= start && address - start < header->p_memsz) return 1;
  }
  return 2;
}

__attribute__((constructor(101))) static void lockstep_make_hashing_deterministic(void) {
  if (&_swift_stdlib_Hashing_parameters == NULL) {
    hashing_setup = lockstep_hashing_no_runtime;
    return;
  }
  if (_swift_stdlib_Hashing_parameters.deterministic) {
    hashing_setup = lockstep_hashing_already;
    return;
  }
  if (!lockstep_in_test_process()) {
    hashing_setup = lockstep_hashing_not_a_test_process;
    return;
  }
  const char *random = getenv("LOCKSTEP_RANDOM_HASHING");
  if (random != NULL && random[0] == '1') {
    hashing_setup = lockstep_hashing_opted_out;
    return;
  }
  if (!lockstep_lies_in_main_executable((uintptr_t)&lockstep_make_hashing_deterministic)) {
    hashing_setup = lockstep_hashing_not_main_executable;
    return;
  }
  // With the runtime linked into the executable too (`--static-swift-stdlib`), its initializer runs
  // after this one and draws its seeds again (checked: setting the variable here does not reach it).
  if (lockstep_lies_in_main_executable((uintptr_t)&_swift_stdlib_Hashing_parameters)) {
    hashing_setup = lockstep_hashing_static_runtime;
    return;
  }
  _swift_stdlib_Hashing_parameters.seed0 = 0;
  _swift_stdlib_Hashing_parameters.seed1 = 0;
  _swift_stdlib_Hashing_parameters.deterministic = true;
  hashing_setup = lockstep_hashing_set;
}

#else

bool lockstep_hashing_is_deterministic(void) { return false; }
bool lockstep_lies_in_main_executable(uintptr_t address) {
  (void)address;
  return false;
}

#endif
