// Moves the thread of a stress run's task to a core of its own while the tasks wait at their start
// barrier, and back (`checkLinearizability`'s stress mode, not a deterministic run: it stands in
// for no call and tells a run nothing). Linux; elsewhere no thread is moved.
#define _GNU_SOURCE
#include "LockstepInterposition.h"

#include <stdlib.h>

#if defined(__linux__)
#include <sched.h>

void *lockstep_pin_to_core(int party) {
  cpu_set_t *original = malloc(sizeof(cpu_set_t));
  if (original == NULL) return NULL;
  if (sched_getaffinity(0, sizeof(cpu_set_t), original) != 0 || CPU_COUNT(original) < 2) {
    free(original);
    return NULL;
  }
  int wanted = party % CPU_COUNT(original);
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, original)) continue;
    if (wanted-- > 0) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof(cpu_set_t), &one) == 0) return original;
    break;
  }
  free(original);
  return NULL;
}

void lockstep_unpin(void *saved) {
  if (saved == NULL) return;
  sched_setaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)saved);
  free(saved);
}
#else
void *lockstep_pin_to_core(int party) {
  (void)party;
  return NULL;
}

void lockstep_unpin(void *saved) { (void)saved; }
#endif
