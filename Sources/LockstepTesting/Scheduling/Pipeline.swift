// How a job goes through the deterministic scheduler, and the file of each step:
//
// 1. Enqueue: the runtime hands a ready job, or a sleep, to Lockstep's executors
//    (Runtime/Executors/LockstepExecutors.swift, installed by Runtime/Executors/RuntimeHooks.swift).
// 2. Route: the job belongs to the run this thread drains (Runtime/Routing/DrainingRun.swift), to the run
//    that owns its task (Runtime/Routing/ActiveRuns.swift), or to the platform's executors.
// 3. Admit: the run's state machine stores it, forwards it or holds it (`admit` in
//    Run/RunState.swift); a sleep waits in virtual time (Run/VirtualTime.swift).
// 4. Choose: the next job comes from Run/ReadyJobs.swift — first in, first out or seeded
//    (Run/ReadyQueue.swift), or an exploration's picker (Run/ExploredJobs.swift, Exploration/Pickers/).
// 5. Run: the drain loop runs it (`runJobs` in Runtime/Drain/DeterministicRun.swift), on the caller's
//    thread or on Lockstep's own (Runtime/Drain/DrainThread.swift); a main-actor job only while the
//    drain holds the process's main actor (Runtime/Drain/MainActorAccess.swift, the placements in
//    Runtime/Lifecycle/RunLifecycle.swift). A main-queue block a job queues becomes a job of the run
//    (Runtime/Executors/MainQueueHandOff.swift).
//
// Runtime/Lifecycle/RunLifecycle.swift starts every run; Exploration/Explorer/Explorer.swift runs one per
// schedule, its picker chosen by a strategy (Exploration/Strategies/).
