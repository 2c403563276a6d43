// Where the concurrency runtime's code lies: the loaded segments of the image that holds
// `swift_continuation_init`, found once. The task-stack reader skips the runtime's own resume
// functions with it, and the lock stand-ins pass the runtime's own locks on at once. It stands in
// for no call and tells a run nothing. Linux only, as its users.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <link.h>
  #include <pthread.h>
#endif

#include "Internal/RuntimeImage.h"

#if defined(__linux__)

uintptr_t lockstep_runtime_start, lockstep_runtime_end;
bool lockstep_runtime_found;

static int find_runtime_image(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t target = (uintptr_t)data, start = UINTPTR_MAX, end = 0;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t low = info->dlpi_addr + header->p_vaddr, high = low + header->p_memsz;
    if (low < start) start = low;
    if (high > end) end = high;
  }
  if (target < start || target >= end) return 0;
  lockstep_runtime_start = start;
  lockstep_runtime_end = end;
  return 1;
}

static void find_runtime(void) {
  void *symbol = dlsym(RTLD_DEFAULT, "swift_continuation_init");
  if (symbol != NULL) dl_iterate_phdr(find_runtime_image, symbol);
  __atomic_store_n(&lockstep_runtime_found, true, __ATOMIC_RELEASE);
}

void lockstep_runtime_image_find(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_runtime);
}

#endif
