// The C library's definition of a function Lockstep stands in for, looked up once: shared by the
// stand-ins of this target. Private to the target (not under include/).
#ifndef LOCKSTEP_NEXT_DEFINITION_H
#define LOCKSTEP_NEXT_DEFINITION_H

#if defined(__linux__)
  #include <dlfcn.h>
  #include <stdio.h>

/// The next definition of `name` after the executable's (`RTLD_NEXT`), cached in `slot`. In a
/// sanitizer build the sanitizer's runtime, linked into the executable, defines its own stand-in
/// for many of these functions (`__interceptor_<name>`), which the executable's definition here
/// replaces: that one is the next definition then, so that the sanitizer still sees each call
/// (a thread it did not see start would crash it).
static inline void *lockstep_next_definition(void **slot, const char *name) {
  void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (__builtin_expect(function == NULL, 0)) {
    char interceptor[96];
    if (snprintf(interceptor, sizeof interceptor, "__interceptor_%s", name) < (int)sizeof interceptor) {
      function = dlsym(RTLD_DEFAULT, interceptor);
    }
    if (function == NULL) function = dlsym(RTLD_NEXT, name);
    __atomic_store_n(slot, function, __ATOMIC_RELEASE);
  }
  return function;
}
#endif

#endif
