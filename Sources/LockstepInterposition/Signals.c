// Signals a process sends itself: `kill` with this process's id (or 0). A signal that would end
// the process is told to Lockstep first, so that a run's report is not lost with it; a signal
// sent from a run's job (or its outside work) is outside work of the run until a Dispatch
// source's event handler of the run handles it (`DispatchSources.c`), so that the run does not
// report a deadlock meanwhile. The call then goes on to the C library unchanged. Linux, where the
// executable's definition comes first; elsewhere nothing is defined here.
#if defined(__linux__)
  #define _GNU_SOURCE
  #include <signal.h>
  #include <unistd.h>
#endif

#include "Internal/RunContext.h"
#include "Internal/NextDefinition.h"
#include "LockstepInterposition.h"

#if defined(__linux__)

typedef int (*kill_function)(pid_t pid, int signal);
static kill_function next_kill;

static lockstep_fatal_signal_observer fatal_signal_observer;

/// Whether `signal`, sent to this process now, would end it: its disposition is the default one,
/// and that default is to terminate.
static bool ends_the_process(int signal) {
  switch (signal) {
  case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
  case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
    return false;
  default:
    break;
  }
  struct sigaction current;
  return sigaction(signal, NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO)
    && current.sa_handler == SIG_DFL;
}

int kill(pid_t pid, int signal) {
  if (signal != 0 && (pid == 0 || pid == getpid())) {
    // A signal that ends the process: a run's report must not be lost with it.
    lockstep_fatal_signal_observer fatal = __atomic_load_n(&fatal_signal_observer, __ATOMIC_ACQUIRE);
    if (__builtin_expect(fatal != NULL, 0) && ends_the_process(signal)) fatal(signal);
    // A signal to this process, which a Dispatch source of the run may be waiting for.
    if (__builtin_expect(lockstep_outside_work_possible(), 0)) {
      lockstep_outside_work_begin(NULL, lockstep_outside_signal);
    }
  }
  kill_function next = (kill_function)lockstep_next_definition((void **)&next_kill, "kill");
  return next(pid, signal);
}

void lockstep_fatal_signal_set_observer(lockstep_fatal_signal_observer observer) {
  __atomic_store_n(&fatal_signal_observer, observer, __ATOMIC_RELEASE);
}

#else

void lockstep_fatal_signal_set_observer(lockstep_fatal_signal_observer observer) { (void)observer; }

#endif
