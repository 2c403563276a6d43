// What Lockstep's Swift code asks of the C library calls it stands in for: the clocks a
// deterministic run makes virtual on its own thread, the hashing parameters it sets before
// `main`, and the task creations a run's jobs make. The definitions are Linux-only; elsewhere every function here reports "not in effect".
// A concern whose functions are defined elsewhere has a header of its own, included here:
// `Symbolication.h` (defined in Swift, by the `LockstepSymbolication` target).
#ifndef LOCKSTEP_INTERPOSITION_H
#define LOCKSTEP_INTERPOSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "Symbolication.h"

/// The number of clock ids a run's virtual clocks cover (Linux's 0 to 11).
#define LOCKSTEP_CLOCK_COUNT 12

/// The clocks of one deterministic run: a clock read on the run's thread while one of the run's
/// jobs runs reads `base[clock] + elapsed` nanoseconds.
typedef struct lockstep_virtual_clocks {
  /// What each clock reads at virtual time zero; `INT64_MIN` for a clock that stays real,
  /// `INT64_MIN + 1` for one the run has not read yet.
  int64_t base[LOCKSTEP_CLOCK_COUNT];
  /// The run's virtual time, in nanoseconds.
  int64_t elapsed;
  /// The real monotonic instant at which the run let its clocks go (it is over while a thread of
  /// it still reads them), 0 before: from then on they move on in real time.
  int64_t released_at;
} lockstep_virtual_clocks;

/// Whether this build stands in for the C library's clock reads (Linux only).
bool lockstep_clocks_interposable(void);

/// Sets every clock's base: the monotonic clocks start where the real ones stand when the run first
/// reads them; the wall clocks (`CLOCK_REALTIME`, its variants, `CLOCK_TAI`) start at `wall_start` nanoseconds
/// since 1970; CPU-time clocks stay real. `elapsed` becomes 0.
void lockstep_virtual_clocks_start(lockstep_virtual_clocks *clocks, int64_t wall_start);

/// Moves `clocks` to `elapsed` nanoseconds of virtual time (an atomic store: XCTest's waiter
/// thread may read them meanwhile).
static inline void lockstep_virtual_clocks_set_elapsed(lockstep_virtual_clocks *clocks, int64_t elapsed) {
  __atomic_store_n(&clocks->elapsed, elapsed, __ATOMIC_RELAXED);
}

/// Lets `clocks` go: the run is over, and every thread still reading them (a job the run gave up,
/// blocked in a wait) reads them moving on in real time from where they stand, so that its own
/// timeouts pass.
void lockstep_virtual_clocks_release(lockstep_virtual_clocks *clocks);

/// Makes the calling thread read `clocks` (or the real clocks, for `NULL`); returns what it read
/// before.
lockstep_virtual_clocks *lockstep_virtual_clocks_enter(lockstep_virtual_clocks *clocks);

/// The real reading of `clock` in nanoseconds, whatever the calling thread reads; -1 on error.
int64_t lockstep_real_clock_nanoseconds(int clock);

/// Whether runs read virtual now in this process: -1 not known yet, 0 no, 1 yes. A plain load, so
/// that a run asks it without the once-check of a lazy Swift global (a few hundred instructions on
/// Linux).
int lockstep_virtual_now_state(void);
void lockstep_set_virtual_now_state(int state);

/// Whether a test ever set a run's clocks for a scope (a start date, the real clocks): until then
/// a run reads no task-local value to learn them.
bool lockstep_clock_overrides_used(void);
void lockstep_note_clock_override(void);

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

/// How many return addresses of the creating frames a task creation records.
#define LOCKSTEP_CREATION_FRAMES 4

/// One task creation, as `swift_task_create` saw it.
typedef struct lockstep_created_task {
  /// The new task: the address of its first job, as an executor sees it.
  const void *task;
  /// Its name, valid only during the observer's call; `NULL` for a task without one.
  const char *name;
  /// The return addresses of the creating frames, innermost first (the first is in the function
  /// that called `swift_task_create`); 0 past the last one read.
  uintptr_t callers[LOCKSTEP_CREATION_FRAMES];
} lockstep_created_task;

/// Receives the task creations of a thread that set a context (`lockstep_task_creation_enter`),
/// during the creating call.
typedef void (*lockstep_task_creation_observer)(void *context, const lockstep_created_task *task);

/// Whether this build defines `swift_task_create` (Linux). Whether the definition is the one task
/// creation calls, and reads what it expects, is what the probe checks.
bool lockstep_task_creation_interposable(void);

/// Sets the function that receives observed creations (once, before any context is entered).
void lockstep_task_creation_set_observer(lockstep_task_creation_observer observer);

/// Receives the tasks that threads without a context create while outside creations are watched.
typedef void (*lockstep_task_creation_outside_observer)(const void *task);

/// Sets the function that receives outside creations (once, before any watch starts).
void lockstep_task_creation_set_outside_observer(lockstep_task_creation_outside_observer observer);

/// Starts (`true`) or stops watching the creations of threads without a context: a deterministic
/// run in progress must tell the tasks created outside it from its own.
void lockstep_task_creation_watch_outside(bool watch);

/// Makes the calling thread report the tasks it creates with `context` (`NULL`: report none);
/// returns the context it had.
void *lockstep_task_creation_enter(void *context);

/// Starts the probe on the calling thread: the next task it creates is recorded, not reported.
/// Returns the context to hand to `lockstep_task_creation_probe_end`.
void *lockstep_task_creation_probe_begin(void);

/// Ends the probe: whether the task it recorded is `task`, named `name` (`NULL`: no name), and
/// was created by code in the image that holds `image`. Restores the thread's context.
bool lockstep_task_creation_probe_end(
  void *previous, const void *task, const char *name, const void *image);

/// The hook's own work for one creation outside runs, around a runtime that creates nothing
/// (what the bench measures; 0 inside a run).
uintptr_t lockstep_task_creation_measure_hook(size_t flags);

/// That runtime called directly: the bench's baseline for `lockstep_task_creation_measure_hook`.
uintptr_t lockstep_task_creation_measure_direct(size_t flags);

/// Where the executor switches of a thread go while a trap is set on it (`TaskSwitch.c`): to the
/// executor `identity`/`implementation` (a `SerialExecutorRef`) for each switch that
/// `should_trap(context)` says to trap, called on the switching task's thread.
typedef struct lockstep_task_switch_trap {
  void *identity;
  uintptr_t implementation;
  bool (*should_trap)(void *context);
  void *context;
} lockstep_task_switch_trap;

/// Whether this build defines `swift_task_switch` (Linux).
bool lockstep_task_switch_interposable(void);

/// Sets the calling thread's trap (`NULL`: none); returns the one it had.
const lockstep_task_switch_trap *lockstep_task_switch_set_trap(const lockstep_task_switch_trap *trap);

enum { lockstep_task_switch_record_capacity = 16 };

/// The tasks that made executor switches on a thread while it records them: the runtime id of
/// each switching task, the first `lockstep_task_switch_record_capacity` switches, and how many
/// there were.
typedef struct lockstep_task_switch_record {
  int count;
  uint64_t task_ids[lockstep_task_switch_record_capacity];
} lockstep_task_switch_record;

/// Records the calling thread's executor switches in `record` (`NULL`: stops recording).
void lockstep_task_switch_set_record(lockstep_task_switch_record *record);

/// Told, on the switching thread, that the run `context` switches to the default actor `actor`.
typedef void (*lockstep_actor_hop_observer)(void *context, const void *actor);

/// Makes the calling thread's switches to default actors go to the observer with `context` (the
/// run it drains; `NULL`: none); returns the context it had.
void *lockstep_actor_claims_enter(void *context);

/// Sets the observer of switches to default actors (`TaskSwitch.c`).
void lockstep_actor_claims_set_observer(lockstep_actor_hop_observer observer);

/// Makes `trail` the crash trail the calling thread records into (`NULL`: none); returns the one it
/// had (`CrashTrails.c`).
void *lockstep_crash_trail_enter(void *trail);

/// The calling thread's crash trail, or `NULL`.
void *lockstep_crash_trail_current(void);

/// Remembers `trail` as the one whose schedule began last.
void lockstep_crash_trail_set_last(void *trail);

/// The trail whose schedule began last, or `NULL`.
void *lockstep_crash_trail_last(void);

/// Receives a block a run's job handed to the main queue (`DispatchQueue.main.async`, or
/// `asyncAfter` with `delayed` and the `delay` in nanoseconds on the clock it named, read on the
/// calling thread). The observer owns the block, a copy: `lockstep_main_queue_run_block` runs and
/// releases it.
typedef void (*lockstep_main_queue_observer)(void *context, void *block, bool delayed, int64_t delay);

/// Whether this build stands in for `dispatch_async` and `dispatch_after` (Linux). Whether those
/// are what `DispatchQueue.main.async` and `asyncAfter` reach is what the probe checks.
bool lockstep_main_queue_interposable(void);

/// Runs a block the observer received, then releases it.
void lockstep_main_queue_run_block(void *block);

/// Sets the function that receives main-queue blocks (once, before any context is entered).
void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer);

/// Outside work of a run (its `token`) queues `block` (copied; the observer owns it when it takes
/// it) for the main queue, after `delay` nanoseconds when `delayed`: whether the run took it.
typedef bool (*lockstep_main_queue_outside_observer)(void *token, void *block, bool delayed, int64_t delay);

/// Sets the function told of main-queue blocks that outside work of a run queues (once).
void lockstep_main_queue_set_outside_observer(lockstep_main_queue_outside_observer observer);

/// Makes the calling thread hand its main-queue blocks to the observer with `context` (`NULL`:
/// to the main queue); returns the context it had.
void *lockstep_main_queue_enter(void *context);

/// Starts the probe on the calling thread: main-queue blocks it queues are counted, and go on to
/// the main queue. Returns the context to hand to `lockstep_main_queue_probe_end`.
void *lockstep_main_queue_probe_begin(void);

/// Ends the probe, restoring the thread's context: how many main-queue blocks it saw.
int lockstep_main_queue_probe_end(void *previous);

/// What outside work of a run is: a block a run's job (or its outside work) queued for a queue
/// other than the main queue, or a thread it started.
enum {
  lockstep_outside_async = 0,
  lockstep_outside_after = 1,
  lockstep_outside_group_async = 2,
  lockstep_outside_group_notify = 3,
  /// A thread: it keeps a run from reporting a deadlock, not virtual time from moving.
  lockstep_outside_thread = 4,
  /// A Dispatch source's registration handler, from when it is set until it has run.
  lockstep_outside_source_registration = 5,
  /// Not work: the run a Dispatch source's event handler was set by, held weakly for as long as
  /// the source keeps the handler (the token is never ended).
  lockstep_outside_source_owner = 6,
  /// One run of a Dispatch source's event handler.
  lockstep_outside_source_event = 7,
  /// A signal a run's job sent to its own process, until a Dispatch source's event handler of the
  /// run runs (the observer returns no token for it).
  lockstep_outside_signal = 8,
  /// The thread XCTest waits for expectations on: it reads the run's virtual clocks and keeps
  /// virtual time still, except while its run loop waits (`ExpectationWaits.c`).
  lockstep_outside_expectation_waiter = 9,
};

/// Outside work begins: `run` is the context of the run whose job runs on the calling thread
/// (`NULL` when none does), `parent` the token of the outside work the calling thread runs
/// (`NULL` when none); `queue` the queue of a block (`NULL` for a thread), `label` its label, if
/// any. Returns the new work's token, or `NULL` to leave it untracked.
typedef void *(*lockstep_outside_began)(void *run, void *parent, int kind, const char *label, void *queue);

/// The outside work of `token` returned (once per token).
typedef void (*lockstep_outside_ended)(void *token);

/// Receives a block a run's job queued with `dispatch_after` for a queue other than the main
/// queue, `delay` nanoseconds ahead on the clock it named, read on the calling thread (the run's
/// virtual clocks). The observer owns the block (a copy) and a reference to the queue, and hands
/// both to `lockstep_dispatch_async_now` when the delay has passed.
typedef void (*lockstep_delayed_block_observer)(void *run, void *queue, void *block, int64_t delay);

/// Sets the functions told of outside work (once, before any run).
void lockstep_outside_work_set_observer(
  lockstep_outside_began began, lockstep_outside_ended ended, lockstep_delayed_block_observer delayed);

/// The process sends itself `signal`, whose disposition ends the process (`kill`).
typedef void (*lockstep_fatal_signal_observer)(int signal);

/// Sets the function told of signals that end the process (once); it writes what must not be lost.
void lockstep_fatal_signal_set_observer(lockstep_fatal_signal_observer observer);

/// Begins outside work on the calling thread (a thread about to be started: `queue` is `NULL`),
/// as the Dispatch stand-ins do; returns its token, `NULL` when the thread runs neither a run's
/// job nor outside work.
void *lockstep_outside_work_begin(void *queue, int kind);

/// Ends the outside work of `token` (nothing for `NULL`).
void lockstep_outside_work_end(void *token);

/// Makes the calling thread run the outside work of `token` (`NULL`: none); returns the token it
/// had.
void *lockstep_outside_work_enter(void *token);

/// Whether the calling thread runs a run's job or its outside work: what it starts may be outside
/// work.
bool lockstep_outside_work_possible(void);

/// The token of the outside work the calling thread runs; `NULL` when it runs none.
void *lockstep_outside_work_current(void);

/// For the bench: queues `count` blocks on a serial queue of its own, outside any run, through the
/// `dispatch_async` stand-in or straight to libdispatch's, and waits until they ran; how many ran
/// (0 where nothing stands in).
uint64_t lockstep_dispatch_measure(bool through_stand_in, int count);

/// Queues `block` for `queue` as `dispatch_async` would from the calling thread, then releases
/// both (they came from the delayed-block observer).
void lockstep_dispatch_async_now(void *queue, void *block);

/// The run whose jobs the calling thread drains now (its main-queue context); `NULL` elsewhere.
void *lockstep_main_queue_current_run(void);

/// What a blocking wait of a run's job waits on (`BlockingWaits.c`).
enum {
  lockstep_blocking_wait_semaphore = 0,
  lockstep_blocking_wait_group = 1,
  /// A blocking sleep (`usleep`, `nanosleep`, `sleep`): no object, only a time.
  lockstep_blocking_wait_sleep = 2,
  /// A run loop run (`CFRunLoopRunInMode`: `RunLoop.run`, XCTest's synchronous waits): the run
  /// loop is the object; its time, or `CFRunLoopStop`, ends it.
  lockstep_blocking_wait_run_loop = 3,
};

/// A job of `run` is about to wait on `object` (a semaphore or a group, by `kind`) for
/// `timeout_nanoseconds` read on the run's clocks (-1: forever). Returns the wait's result (0, or
/// non-zero when it timed out), or -1 when the run does not take the wait and the caller waits as
/// before.
typedef long (*lockstep_blocking_wait_observer)(
  void *run, void *object, int kind, int64_t timeout_nanoseconds);

/// A job of `run`, or outside work of a run (its token), signals `object`, a semaphore, before
/// libdispatch sees the signal; or leaves it, a group, after (by `kind`).
typedef void (*lockstep_semaphore_signal_observer)(void *run, void *token, void *object, int kind);

/// A job of `run`, or outside work of a run (its token), created `object`, a semaphore or a group.
typedef void (*lockstep_created_object_observer)(void *run, void *token, void *object);

/// Sets the functions told of blocking waits, signals and creations (once, before any run).
void lockstep_blocking_waits_set_observer(
  lockstep_blocking_wait_observer wait, lockstep_semaphore_signal_observer signal,
  lockstep_created_object_observer created);

/// Counts jobs parked (`change` 1) or resumed (-1): signals are told to runs only while one is.
void lockstep_blocking_waits_parked(long change);

/// A job of `run` calls `dispatch_sync` (or, `barrier`, `dispatch_barrier_sync`) for `queue`, a
/// queue other than the main queue: returns whether the run took the call, and made it (parked,
/// when blocks of the run are on that queue).
typedef bool (*lockstep_sync_observer)(void *run, void *queue, void *block, bool barrier);

/// Sets the function told of a run's jobs' `dispatch_sync` calls (once, before any run).
void lockstep_sync_set_observer(lockstep_sync_observer observer);

/// Calls libdispatch's `dispatch_sync` (or `dispatch_barrier_sync`) itself.
void lockstep_dispatch_sync_now(void *queue, void *block, bool barrier);

/// Offers a run of `run_loop` for `nanoseconds` (-1: until stopped) by the calling thread's job to
/// its run: 0 when `CFRunLoopStop` ended it, 1 when its time passed in virtual time, -1 when the
/// run does not take it and the caller runs the run loop as before.
long lockstep_run_loop_wait_in_run(void *run_loop, int64_t nanoseconds);

/// What a lock call of a run's job is (`LockCalls.c`).
enum {
  /// `pthread_mutex_lock`, before the C library sees it: a scheduling point.
  lockstep_lock_event_lock = 0,
  /// `pthread_mutex_trylock`, before the C library sees it: a scheduling point.
  lockstep_lock_event_try = 1,
  /// The C library gave the job the mutex: a `trylock` that succeeded, or a condition's wait that
  /// took it back.
  lockstep_lock_event_taken = 2,
  /// `pthread_mutex_unlock`, after the C library saw it; or a condition's wait letting it go.
  lockstep_lock_event_unlock = 3,
  /// A read-write lock (`pthread_rwlock_rdlock`, `pthread_rwlock_wrlock`): seen, no scheduling point.
  lockstep_lock_event_unscheduled = 4,
};

/// What else the run is told of a lock call (`flags`).
enum {
  /// The calling thread holds a lock of the runtime, Foundation or the C library.
  lockstep_lock_holds_system_lock = 1,
  /// The mutex is recursive (`NSRecursiveLock`).
  lockstep_lock_recursive = 2,
};

/// A job of `run`, on thread `thread`, makes lock call `event` on `mutex` from `caller` (a return
/// address in the code under test). Returns 0 when the call goes on to the C library, non-zero
/// when it returns at once: the run is over, and another of its parked threads holds the mutex.
typedef int (*lockstep_lock_observer)(
  void *run, void *mutex, int event, int flags, uintptr_t thread, uintptr_t caller);

/// Sets the function told of the lock calls of runs' jobs (once, before any run).
void lockstep_locks_set_observer(lockstep_lock_observer observer);

/// A stretch of a run's jobs starts on the calling thread: it holds none of the runtime's locks.
void lockstep_locks_job_starts(void);

/// While `on`, the calling thread's lock calls outside runs are where Foundation's `NSLocking`
/// witnesses call the C library from: those callers are looked past (`LockCalls.c`).
void lockstep_locks_probe(bool on);

/// The calling thread's return addresses, innermost first, at most `capacity` (Linux; 0
/// elsewhere): cheaper than Foundation's, which boxes each.
int lockstep_return_addresses(uintptr_t *addresses, int capacity);

/// The C library's `pthread_mutex_lock` itself, for Lockstep's own locks: never a scheduling point.
void lockstep_private_mutex_lock(void *mutex);

/// The C library's `pthread_mutex_unlock` itself, for Lockstep's own locks.
void lockstep_private_mutex_unlock(void *mutex);

/// The C library's `pthread_cond_wait` itself, for Lockstep's own conditions.
void lockstep_private_condition_wait(void *condition, void *mutex);

/// The C library's `pthread_cond_timedwait` itself, until `deadline_nanoseconds` since 1970 on the
/// real wall clock; whether the condition was signalled (`false`: the deadline came first).
bool lockstep_private_condition_timed_wait(void *condition, void *mutex, int64_t deadline_nanoseconds);

/// libdispatch's own wait on `semaphore`, forever or not at all; 0 when it took a signal.
long lockstep_semaphore_wait_now(void *semaphore, bool forever);

/// libdispatch's own check that `group` is empty; 0 when it is.
long lockstep_group_wait_now(void *group);

/// libdispatch's own signal of `semaphore`.
long lockstep_semaphore_signal_now(void *semaphore);

/// A new semaphore that libdispatch signals once when `group` is empty; the caller releases it
/// (`lockstep_semaphore_release`). `NULL` where it cannot be made.
void *lockstep_group_empty_semaphore(void *group);

/// A new semaphore of libdispatch's, at 0, that no run sees made; `NULL` where there is none.
void *lockstep_semaphore_new(void);

/// Releases a semaphore `lockstep_group_empty_semaphore` or `lockstep_semaphore_new` made.
void lockstep_semaphore_release(void *semaphore);

/// XCTest's waiter thread of a run (its outside work, `token`) waits in its run loop `run_loop`
/// for `nanoseconds`: the run rests it until that time is over in virtual time, or until a stop,
/// and returns what `CFRunLoopRunInMode` returns (`kCFRunLoopRunStopped`, `kCFRunLoopRunTimedOut`);
/// -1 when the run takes no more (the thread reads the real clocks from then on).
typedef int32_t (*lockstep_run_loop_rest)(void *token, int64_t nanoseconds, void *run_loop);

/// The virtual clocks of the run of outside work `token`, or `NULL`.
typedef lockstep_virtual_clocks *(*lockstep_waiter_clocks_function)(void *token);

/// `run_loop` is about to be stopped (`CFRunLoopStop`) by a job of `run`, or by outside work of a
/// run (its `token`): XCTest ends a wait so when the expectations it waits for are fulfilled.
typedef void (*lockstep_run_loop_stop_observer)(void *run, void *token, void *run_loop);

/// Sets the functions told of XCTest's waits (once, before any run).
void lockstep_expectation_waits_set_observer(
  lockstep_run_loop_rest rest, lockstep_waiter_clocks_function clocks,
  lockstep_run_loop_stop_observer stopped);

/// Counts the run-loop waits the run takes now, so that `CFRunLoopStop` asks only while one does.
void lockstep_run_loop_waits_taken(long change);

/// Whether the calling code runs for XCTest: a frame of the stack is XCTest's library.
bool lockstep_called_from_xctest(void);

/// Makes the calling thread, about to run the outside work `token`, XCTest's waiter: it reads the
/// run's virtual clocks until `lockstep_expectation_waiter_leave`.
void lockstep_expectation_waiter_enter(void *token);
void lockstep_expectation_waiter_leave(void);

/// A job of `run`, or outside work of a run (its `token`), set the timer of Dispatch source
/// `source`: first after `delay` nanoseconds of the clock it named (read on the calling thread),
/// then every `interval` nanoseconds (-1: once). Returns whether the run takes the timer: the
/// stand-in then disarms libdispatch's.
typedef bool (*lockstep_timer_observer)(void *run, void *token, void *source, int64_t delay, int64_t interval);

/// `source` is being cancelled.
typedef void (*lockstep_timer_cancel_observer)(void *source);

/// Sets the functions told of timers set and sources cancelled (once, before any run).
void lockstep_timer_set_observer(lockstep_timer_observer observer, lockstep_timer_cancel_observer cancel);

/// libdispatch's `dispatch_retain` and `dispatch_release`.
void lockstep_dispatch_retain(void *object);
void lockstep_dispatch_release(void *object);

/// Makes the timer of `source` fire once, now (libdispatch's own call).
void lockstep_timer_fire_now(void *source);

/// Gives the timer of `source` back to libdispatch: first in `delay` nanoseconds of real time,
/// then every `interval` (-1: once).
void lockstep_timer_restore(void *source, int64_t delay, int64_t interval);

/// Why `lockstep_suspended_task_stack` read nothing.
enum {
  /// Not a task of this runtime (its metadata or job kind differ), or not Linux.
  lockstep_task_stack_not_a_task = -1,
  /// The task is running: its frames change as they are read.
  lockstep_task_stack_running = -2,
  /// The task has finished: its frames are gone.
  lockstep_task_stack_complete = -3,
};

/// Whether this build can read where suspended tasks wait (Linux, with the runtime's task
/// metadata symbol). Whether the layout it reads holds is what the probe checks.
bool lockstep_task_stacks_readable(void);

/// Keeps the task whose job is `job` alive (a strong reference) and returns `true`, when `job` is
/// a task that may outlive the scope that created it (not an `async let` task's).
bool lockstep_task_retain(const void *job);

/// The kind of a job that is not a task, by the runtime's job kinds (Swift 6.3's
/// `MetadataValues.h`): an actor's job, or the job that resumes a task after `Task.yield()`.
enum {
  lockstep_job_other = 0,
  lockstep_job_actor = 1,
  lockstep_job_yield = 2,
};

/// What the job `job`, not yet run, is (`lockstep_job_other` where it cannot be read).
int lockstep_job_kind(const void *job);

/// The word at `offset` (aligned, under 1 KiB) of `task`, kept alive by the caller, when `task` is
/// an unstructured task (`Task {}`: a future, no child): the head of its queue of tasks awaiting its
/// value, where a probe located it. 0 otherwise, or not on Linux.
uintptr_t lockstep_future_wait_queue(const void *task, size_t offset);

/// The runtime id of the task `job` belongs to (`swift_task_getJobTaskId`, looked up rather than
/// linked, so that the package loads on OS versions whose runtime lacks it); 0 there.
uint64_t lockstep_job_task_id(const void *job);

/// Gives up a reference `lockstep_task_retain` took.
void lockstep_task_release(const void *task);

/// Where `task`, suspended, waits: the resume function of its job, then the function that resumes
/// each of its async callers, innermost first, at most `limit`. Returns how many it wrote, or one
/// of the negative reasons above. The caller keeps `task` alive.
int lockstep_suspended_task_stack(const void *task, uintptr_t *addresses, int limit);

/// The first `limit` addresses of `lockstep_suspended_task_stack` that are not the concurrency
/// runtime's own (`withCheckedContinuation`, `withTaskGroup` and the like): where the code that
/// called it waits, cheap enough to read after every step.
int lockstep_suspension_site(const void *task, uintptr_t *addresses, int limit);

/// Where debug information places one code address: its source file's name as the image's line
/// table spells it (often a path; valid for the life of the process) and line.
typedef struct lockstep_source_line {
  /// The file's name; `NULL` when no row of the line table covers the address.
  const char *file;
  /// The line; code on no line (compiler-generated: a landing pad, padding) has the line of the
  /// last row before it in its sequence, and 0 when there is none.
  uint32_t line;
  /// Whether the image holding the address has a line table this reader reads.
  bool readable;
} lockstep_source_line;

/// The file and line of each of `count` code addresses of this process (an instruction's own
/// address, not a return address), read from the `.debug_line` sections of the images that hold
/// them in one pass per image. Returns how many lie in an image whose line table was read; 0 where
/// none can be (not Linux, no debug information, compressed sections).
int lockstep_source_lines(const uintptr_t *addresses, int count, lockstep_source_line *lines);

/// Adds `delta` to `*value` and returns what it held before: one read-modify-write, sequentially
/// consistent. For the counters of `checkLinearizability`'s stress runs, which order the calls of
/// tasks on real threads (Swift's `Atomic` needs macOS 15; this package supports older systems).
static inline int64_t lockstep_atomic_add(int64_t *value, int64_t delta) {
  return __atomic_fetch_add(value, delta, __ATOMIC_SEQ_CST);
}

/// Reads `*value` (sequentially consistent), as written by `lockstep_atomic_add` or
/// `lockstep_atomic_store`.
static inline int64_t lockstep_atomic_load(const int64_t *value) {
  return __atomic_load_n(value, __ATOMIC_SEQ_CST);
}

/// Writes `*value` (sequentially consistent).
static inline void lockstep_atomic_store(int64_t *value, int64_t new_value) {
  __atomic_store_n(value, new_value, __ATOMIC_SEQ_CST);
}

/// Writes `*value` with no ordering: for a word one thread writes as it goes and another thread
/// of an ended run may still write (a crash trail's step).
static inline void lockstep_atomic_store_relaxed(int64_t *value, int64_t new_value) {
  __atomic_store_n(value, new_value, __ATOMIC_RELAXED);
}

/// Moves the calling thread to the `party`-th (modulo their count) of the cores it may use, and
/// returns what gives them back to it (pass it to `lockstep_unpin`); `NULL` when it may use fewer
/// than two cores, or the system cannot move it (not Linux). For the start barrier of
/// `checkLinearizability`'s stress runs: tasks on one core never run at the same moment.
void *lockstep_pin_to_core(int party);

/// Gives the calling thread back the cores `lockstep_pin_to_core` took from it; `NULL` does
/// nothing.
void lockstep_unpin(void *saved);

#endif
