// How a job goes through the deterministic scheduler, and the file of each step:
//
// 1. Enqueue: the runtime hands a ready job, or a sleep, to Lockstep's executors
//    (Runtime/Executors/LockstepExecutors.swift, installed by Runtime/Executors/RuntimeHooks.swift).
// 2. Route: one rule says which run, if any, owns it (Runtime/Routing/JobRouter.swift): the run
//    this thread drains (Runtime/Routing/DrainingRun.swift), or the run that owns its task
//    (Runtime/Routing/ActiveRuns.swift); otherwise the platform's executors take it.
// 3. Admit: the run's state machine stores it, forwards it or holds it, as the router says
//    (`admit` in Run/RunState/RunState+Admission.swift); a sleep waits in virtual time (Run/VirtualTime.swift).
// 4. Choose: the next job comes from Run/ReadyJobs.swift — first in, first out or seeded
//    (Run/ReadyQueue.swift), or an exploration's picker (Run/ExploredJobs.swift, Exploration/Pickers/).
// 5. Run: a stretch of draining runs it (`runJobs` in Runtime/Drain/DeterministicRun.swift); the
//    drain loop (Runtime/Drain/DrainLoop.swift) says on which thread, from one table
//    (Runtime/Drain/DrainTable.swift): the caller's thread (Runtime/Drain/InlineDrains.swift), the
//    main actor, or a thread of Lockstep's own (Runtime/Drain/DrainThread.swift). A switch of a
//    job to a default actor claims the actor for the run (Runtime/Routing/ActorClaims.swift). A main-actor job runs only with the lease of the real main
//    actor (Runtime/Drain/MainActorAccess.swift). A main-queue block a job queues becomes a job of
//    the run (Runtime/Executors/MainQueueHandOff.swift); a block for another queue, a thread or a
//    Dispatch source's handler is the run's outside work (Runtime/Executors/OutsideWorkTracking.swift,
//    Run/OutsideWork.swift), which keeps virtual time still and holds deadlock reports back.
//
// Runtime/Lifecycle/RunLifecycle.swift starts every run, side by side with other tests' runs;
// Exploration/Explorer/Explorer.swift runs one per
// schedule, its picker chosen by a strategy (Exploration/Strategies/). CONTRIBUTING.md lists the
// runtime's invariants and the test of each.
