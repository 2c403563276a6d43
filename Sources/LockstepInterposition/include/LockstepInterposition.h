// What Lockstep's Swift code asks of the C library calls it stands in for, one header per concern.
// The definitions are Linux-only; elsewhere every function reports "not in effect". This umbrella
// only includes them; `Symbolication.h` declares what the `LockstepSymbolication` target defines
// in Swift. `BenchHooks.h`, for `lockstep-bench` alone, is not included: it is the explicit
// submodule `LockstepInterposition.BenchHooks` (`module.modulemap`).
#ifndef LOCKSTEP_INTERPOSITION_H
#define LOCKSTEP_INTERPOSITION_H

#include "BlockingWaits.h"
#include "CallStacks.h"
#include "Clocks.h"
#include "CrashTrails.h"
#include "RunContext.h"
#include "Dispatch.h"
#include "ExpectationWaits.h"
#include "Locks.h"
#include "Process.h"
#include "SourceLines.h"
#include "Stress.h"
#include "SuspendedTasks.h"
#include "Symbolication.h"
#include "Tasks.h"

#endif
