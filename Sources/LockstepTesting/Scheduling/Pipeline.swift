// How a job goes through the deterministic scheduler: six hops, each a named function, and its file.
//
// 1. Enqueue: the runtime hands a ready job to Lockstep's executors, which make it a
//    `ScheduledJob` (`enqueueInRun`, Runtime/Executors/LockstepExecutors.swift, installed by
//    Runtime/Executors/RuntimeHooks.swift); a sleep goes the same way (`scheduleInRun`).
// 2. Route: which run, if any, is asked (`ActiveRuns.runToAsk` over `JobRouter.runToAsk`,
//    Runtime/Routing/): the run this thread drains (its run context, Runtime/Routing/RunContext.swift), or the run
//    that owns the job's task; otherwise the platform's executors take it.
// 3. Admit: the run's shell takes it (`DeterministicRun.enqueue`,
//    Runtime/Drain/DeterministicRun/DeterministicRun.swift), and its state machine stores it,
//    forwards it or holds it as `JobRouter.route` says (`RunState.enqueue` and `admit`,
//    Run/RunState/RunState+Admission.swift); a sleep waits in virtual time (Run/VirtualTime.swift).
// 4. Choose: `RunState.next` asks its rungs in order (Run/RunState/RunState+NextStep.swift); a ready
//    job comes from `nextReadyJob`, through Run/ReadyJobs.swift — first in, first out or seeded
//    (Run/ReadyQueue.swift), or an exploration's picker (Run/ExploredJobs.swift, Exploration/Pickers/).
// 5. Drain: a stretch of draining takes the step and runs it (`DeterministicRun.runJobs`, then
//    `runJob`, Runtime/Drain/DeterministicRun/DeterministicRun+Stretch.swift), on the thread the
//    drain loop chooses (Runtime/Drain/DrainLoop.swift, from Runtime/Drain/DrainTable.swift): the
//    caller's thread (Runtime/Drain/InlineDrains.swift), the main actor, or a thread of Lockstep's
//    own (Runtime/Drain/DrainThread.swift).
// 6. Run: `RuntimeHooks.run(_:holding:)` runs the job on this thread (Runtime/Executors/RuntimeHooks.swift);
//    a main-actor job only with the lease of the real main actor (Runtime/Drain/MainActorAccess.swift).
//
// How a Dispatch block a run's job queues goes from `dispatch_async` to its end (Linux), six hops:
//
// 1. Stand in: `dispatch_async` (LockstepInterposition/OutsideBlocks.c) asks `async_of_run`; a block
//    for the main queue goes to the main-queue hand-off instead (`lockstep_main_queue_hand_off`,
//    LockstepInterposition/MainQueue.c, then `MainQueueHandOff.start`: a main-actor task of the run,
//    whose jobs go the six hops above).
// 2. Begin: `as_outside_work` tells the run (`lockstep_outside_work_begin`,
//    LockstepInterposition/OutsideWork.c, then `OutsideWorkTracking.began`,
//    Runtime/Executors/OutsideWorkTracking.swift); `RunState.beginOutsideWork`
//    (Run/RunState/RunState+OutsideWork.swift) counts it in flight: virtual time stands still.
// 3. Queue: libdispatch's `dispatch_async_f` queues it with `run_outside_block` (OutsideBlocks.c).
// 4. Run: `run_outside_block` runs it on the thread its queue chose, the thread's outside token
//    set in its run context (LockstepInterposition/RunContext.c): blocks and threads it starts are the run's too.
// 5. End: `lockstep_outside_work_end`, then `OutsideWorkTracking.Token.end` and
//    `RunState.endOutsideWork`, which wakes the drain (and a `queue.sync` parked behind it).
// 6. Time moves on: `RunState.next` waits at `nextWaitForTimeHolders` while outside work is in
//    flight, and moves virtual time (`nextTimerOrSleeper`) only once none is.
//
// On the way: a switch of a job to a default actor claims the actor for the run
// (Runtime/Routing/ActorClaims.swift). A main-queue block a job queues becomes a job of the run
// (Runtime/Executors/MainQueueHandOff.swift); a block for another queue, a thread or a Dispatch
// source's handler is the run's outside work (Runtime/Executors/OutsideWorkTracking.swift,
// Run/RunState/RunState+OutsideWork.swift), which keeps virtual time still and holds deadlock
// reports back. A job parked in a blocking wait hands its turn on (Runtime/Drain/ParkedJobs.swift);
// one at a lock of the code under test stops there (Runtime/Drain/LockPoints.swift).
//
// Runtime/Lifecycle/RunLifecycle.swift starts every run, side by side with other tests' runs;
// Exploration/Explorer/Explorer.swift runs one per schedule, its picker chosen by a strategy
// (Exploration/Strategies/). CONTRIBUTING.md lists the runtime's invariants and the test of each.
