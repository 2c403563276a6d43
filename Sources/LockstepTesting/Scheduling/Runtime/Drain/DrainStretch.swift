/// How one stretch of draining a run ended: the run is over, or it pauses between two jobs and a
/// later stretch, on this thread or another, goes on from there.
enum DrainStretch {
  case ended(DrainOutcome)
  case paused(DrainPause)
  /// This helper thread's turn ended: another thread drains the run now (``ParkedJobs``).
  case retired
}

/// Why a drain paused between two jobs.
enum DrainPause {
  /// The inline budget is spent: the thread goes back to other work, or hands the run on.
  case budgetSpent
  /// The next job is a main-actor job and this thread does not hold the main actor.
  case needsMainActor
  /// The run must wait in real time for jobs from outside it, which must not happen while holding
  /// the main actor (those jobs may need it); or the next job is no main-actor job and the stretch
  /// holds the main actor only for those (``DrainPlace/runsOnlyMainActorJobs``).
  case leaveMainActor
  /// Nothing is ready: the drain lets the main queue run what it holds, once, and takes the main
  /// actor after it (a block queued on the main queue may be what the run waits for).
  case yieldMainActor
}
