// The runtime id of a job's task, through `swift_task_getJobTaskId` looked up when first needed
// rather than linked: the Swift runtime of macOS 13 and iOS 16, which the package supports, does
// not have it, and a test bundle that links a symbol its OS lacks does not load. Where it is
// missing, deterministic scheduling is unavailable anyway (it needs the 26.4 runtimes there). Every
// platform; it stands in for no call and tells a run nothing.
#if defined(__linux__)
  #define _GNU_SOURCE
#endif
#include <dlfcn.h>

#include "LockstepInterposition.h"

typedef uint64_t (*get_job_task_id_function)(const void *job) __attribute__((swiftcall));

/// The runtime's function, looked up once: `NULL` until then, `missing` when it is not there.
static get_job_task_id_function get_job_task_id;
static const uintptr_t missing = 1;

uint64_t lockstep_job_task_id(const void *job) {
  get_job_task_id_function function = __atomic_load_n(&get_job_task_id, __ATOMIC_ACQUIRE);
  if (function == NULL) {
    void *symbol = dlsym(RTLD_DEFAULT, "swift_task_getJobTaskId");
    function = symbol ? (get_job_task_id_function)symbol : (get_job_task_id_function)missing;
    __atomic_store_n(&get_job_task_id, function, __ATOMIC_RELEASE);
  }
  if ((uintptr_t)function == missing) return 0;
  return function(job);
}
