// The C library's definition of a function Lockstep stands in for, looked up once: shared by the
// stand-ins of this target. Private to the target (not under include/).
#ifndef LOCKSTEP_NEXT_DEFINITION_H
#define LOCKSTEP_NEXT_DEFINITION_H

#if defined(__linux__)
  #include <dlfcn.h>

/// The next definition of `name` after the executable's (`RTLD_NEXT`), cached in `slot`.
static inline void *lockstep_next_definition(void **slot, const char *name) {
  void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (__builtin_expect(function == NULL, 0)) {
    function = dlsym(RTLD_NEXT, name);
    __atomic_store_n(slot, function, __ATOMIC_RELEASE);
  }
  return function;
}
#endif

#endif
