// XCTest's waits and the run loops of a run's jobs (`ExpectationWaits.c`).
#ifndef LOCKSTEP_EXPECTATION_WAITS_H
#define LOCKSTEP_EXPECTATION_WAITS_H

#include <stdbool.h>
#include <stdint.h>
#include "Clocks.h"

/// XCTest's waiter thread of a run (its outside work, `token`) waits in its run loop `run_loop`
/// for `nanoseconds`: the run rests it until that time is over in virtual time, or until a stop,
/// and returns what `CFRunLoopRunInMode` returns (`kCFRunLoopRunStopped`, `kCFRunLoopRunTimedOut`);
/// -1 when the run takes no more (the thread reads the real clocks from then on).
typedef int32_t (*lockstep_run_loop_rest)(void *token, int64_t nanoseconds, void *run_loop);

/// `run_loop` is about to be stopped (`CFRunLoopStop`) by a job of `run`, or by outside work of a
/// run (its `token`): XCTest ends a wait so when the expectations it waits for are fulfilled.
typedef void (*lockstep_run_loop_stop_observer)(void *run, void *token, void *run_loop);

/// Sets the functions told of XCTest's waits (once, before any run).
void lockstep_expectation_waits_set_observer(
  lockstep_run_loop_rest rest, lockstep_run_loop_stop_observer stopped);

/// Counts the run-loop waits the run takes now, so that `CFRunLoopStop` asks only while one does.
void lockstep_run_loop_waits_taken(long change);

/// Whether the calling code runs for XCTest: a frame of the stack is XCTest's library.
bool lockstep_called_from_xctest(void);

/// Makes the calling thread, about to run the outside work `token`, XCTest's waiter: it reads the
/// run's virtual clocks until `lockstep_expectation_waiter_leave`.
void lockstep_expectation_waiter_enter(void *token);
void lockstep_expectation_waiter_leave(void);

#endif
