// The Dispatch calls of a run's jobs and of its outside work: the main-queue hand-off
// (`MainQueue.c`), blocks for other queues and the outside-work token API (`OutsideWork.c`,
// `OutsideBlocks.c`), and sources and timers (`DispatchSources.c`).
#ifndef LOCKSTEP_DISPATCH_H
#define LOCKSTEP_DISPATCH_H

#include "RunContext.h"
#include <stdbool.h>
#include <stdint.h>

/// Receives a block a run's job handed to the main queue (`DispatchQueue.main.async`, or
/// `asyncAfter` with `delayed` and the `delay` in nanoseconds on the clock it named, read on the
/// calling thread). The observer owns the block, a copy: `lockstep_main_queue_run_block` runs and
/// releases it. Returns whether the run took it; otherwise the block goes on to the main queue and
/// the observer has released nothing.
typedef bool (*lockstep_main_queue_observer)(void *context, void *block, bool delayed, int64_t delay);

/// Whether this build stands in for `dispatch_async` and `dispatch_after` (Linux). Whether those
/// are what `DispatchQueue.main.async` and `asyncAfter` reach is what the probe checks.
bool lockstep_main_queue_interposable(void);

/// Runs a block the observer received, then releases it.
void lockstep_main_queue_run_block(void *block);

/// Sets the function that receives main-queue blocks (once, before any run).
void lockstep_main_queue_set_observer(lockstep_main_queue_observer observer);

/// Outside work of a run (its `token`) queues `block` (copied; the observer owns it when it takes
/// it) for the main queue, after `delay` nanoseconds when `delayed`: whether the run took it.
typedef bool (*lockstep_main_queue_outside_observer)(void *token, void *block, bool delayed, int64_t delay);

/// Sets the function told of main-queue blocks that outside work of a run queues (once).
void lockstep_main_queue_set_outside_observer(lockstep_main_queue_outside_observer observer);

/// Starts the probe on the calling thread: main-queue blocks it queues are counted, and go on to
/// the main queue; it runs no run's jobs meanwhile. Keeps the thread's run context in `saved`, for
/// `lockstep_main_queue_probe_end`.
void lockstep_main_queue_probe_begin(lockstep_run_context *saved);

/// Ends the probe, restoring the thread's run context: how many main-queue blocks it saw.
int lockstep_main_queue_probe_end(const lockstep_run_context *saved);

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

/// Receives a block a run's job (`run`), or its outside work (`parent`, the work's token, `run`
/// `NULL`), queued with `dispatch_after` for a queue other than the main queue, `delay`
/// nanoseconds ahead on the clock it named, read on the calling thread. The observer owns the
/// block (a copy) and a reference to the queue, and hands both to `lockstep_dispatch_async_now`
/// when the delay has passed; it returns `false` when it takes neither (the call goes on as
/// without a run).
typedef bool (*lockstep_delayed_block_observer)(
  void *run, void *parent, void *queue, void *block, int64_t delay);

/// The virtual clocks of the run whose outside work `token` is (while the work is in flight),
/// or `NULL` for the real ones.
typedef lockstep_virtual_clocks *(*lockstep_outside_clocks)(void *token);

/// Sets the function that gives outside work its run's clocks (once, before any run): a block or
/// a thread of a run reads them, as the run's jobs do.
void lockstep_outside_work_set_clocks(lockstep_outside_clocks clocks);

/// Sets the functions told of outside work (once, before any run).
void lockstep_outside_work_set_observer(
  lockstep_outside_began began, lockstep_outside_ended ended, lockstep_delayed_block_observer delayed);

/// Begins outside work on the calling thread (a thread about to be started: `queue` is `NULL`),
/// as the Dispatch stand-ins do; returns its token, `NULL` when the thread runs neither a run's
/// job nor outside work.
void *lockstep_outside_work_begin(void *queue, int kind);

/// Ends the outside work of `token` (nothing for `NULL`).
void lockstep_outside_work_end(void *token);

/// Queues `block` for `queue` as `dispatch_async` would from the calling thread, then releases
/// both (they came from the delayed-block observer).
void lockstep_dispatch_async_now(void *queue, void *block);

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

#endif
