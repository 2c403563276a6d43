/// The end of a run: it finishes, is quarantined, or is given up by the watchdog.
extension DeterministicRun {
  /// Keeps `outcome` as the run's, unless it was given up already; returns whether it was kept.
  func noteAbandoned(_ outcome: DrainOutcome) -> Bool {
    sidelines.withLock { sidelines in
      guard sidelines.abandonedOutcome == nil else { return false }
      sidelines.abandonedOutcome = outcome
      return true
    }
  }

  /// Gives the run up because its running job has held the drain thread past the run's deadline
  /// (``RunWatchdog``, on its own thread): quarantines the run and returns the outcome to report,
  /// or `nil` when no job runs any more or the run is over. Reads only the run's state, under its
  /// lock: the drain thread's own fields belong to the blocked thread.
  func abandonBlockedJob(blockedFor: Duration) -> DrainOutcome? {
    let abandoned:
      (
        trace: SchedulerTrace, blocked: String, tasks: [String], ids: [UInt64], parked: [ParkedWaits.Wait]
      )? =
        state.withLock { state in
          let parked = state.parked.waits
          guard case .reportBlocked(let task) = state.abandonBlockedJob() else { return nil }
          let blocked = task == 0 ? "an actor's job" : state.taskDescription(task)
          return (state.trace, blocked, state.taskDescriptions(), state.taskIDs, parked)
        }
    guard let abandoned else { return nil }
    ActiveRuns.quarantine(self, taskIDs: abandoned.ids)
    ActorClaims.release(self)
    clocks?.letGo()
    releaseParkedThreads(abandoned.parked)
    let outcome = DrainOutcome.blocked(
      abandoned.trace,
      blocked: "\(abandoned.blocked), for \(blockedFor.millisecondsText) past the run's bound,",
      tasks: abandoned.tasks)
    guard noteAbandoned(outcome) else { return nil }
    return outcome
  }

  /// Ends a run whose drain could not get the main actor by its deadline.
  func failWithoutMainActor() -> DrainOutcome {
    let outcome = quarantine { .mainActorUnavailable($0) }
    handOnRunOver()
    return outcome
  }

  /// Ends a run that cannot finish: its tasks stay suspended for good, and jobs of theirs that
  /// arrive later are held. The actors whose jobs were ready are freed first
  /// (``releaseActors()``). `outcome` is made from the run's trace, which counts the actor jobs
  /// left held, if any: the report says that those actors stay busy.
  func quarantine(_ outcome: (SchedulerTrace) -> DrainOutcome) -> DrainOutcome {
    let (taskIDs, parked) = state.withLock { state in
      let parked = state.parked.waits
      state.quarantineAll()
      return (state.taskIDs, parked)
    }
    ActiveRuns.quarantine(self, taskIDs: taskIDs)
    let leftBusy = releaseActors()
    ActorClaims.release(self)
    if progress.report != nil { CrashReport.releaseRunReport(for: self) }
    var trace = state.withLock { $0.trace }
    trace.actorJobsLeftBusy = leftBusy
    let ended = outcome(trace)
    // A helper ends the run for a caller whose thread is parked: that thread, released below,
    // returns this outcome.
    if drainsAsHelper { _ = noteAbandoned(ended) }
    clocks?.letGo()
    releaseParkedThreads(parked)
    return ended
  }

  /// Frees the actors of a run the watchdog gave up, once its blocked job has returned on this
  /// thread: leaving an actor, that job queued the actor's next job, which the quarantine holds.
  /// Until then the blocked thread's fields are its own, so nothing is run before.
  func releaseActorsLeftByTheBlockedJob() {
    _ = releaseActors()
    ActorClaims.release(self)
  }

  /// The most actor jobs a quarantine runs to free actors.
  static var actorReleaseLimit: Int { 10_000 }

  /// Runs the quarantine's actor jobs, so that no actor stays busy for good: an actor whose job
  /// never runs never runs another, and a later test that calls it would wait forever. Each job
  /// runs the work queued on its actor one step, as the run would have; the task jobs that work
  /// enqueues stay held, and the actor jobs it enqueues run in turn, up to
  /// ``actorReleaseLimit``. Returns how many actor jobs are left held.
  private func releaseActors() -> Int {
    var budget = Self.actorReleaseLimit
    asDrainThread {
      while budget > 0,
        let (job, now) = state.withLock({ state in
          state.takeHeldActorJob().map { ($0, state.nowNanoseconds) }
        })
      {
        runningTaskID = nil
        runHoldingQuarantinedTasks { runJob(job, now: now, holding: nil) }
        budget -= 1
      }
    }
    return state.withLock { $0.heldActorJobCount }
  }

  /// Ends a run whose body finished (or that reported a deadlock its cancellation unwound).
  func finish() -> DrainOutcome {
    ActiveRuns.remove(self)
    ActorClaims.release(self)
    if progress.report != nil { CrashReport.releaseRunReport(for: self) }
    let (finished, tasks) = state.withLock { state in (state.finish(), state.takeTaskObjects()) }
    SuspendedTaskStacks.release(tasks)
    for (job, remaining) in finished.forward { RuntimeHooks.forward(job, after: remaining) }
    // A wait still pending after the run keeps its failure bound, now in real time.
    for (id, remaining) in finished.timersInRealTime {
      _ = Timeouts.startInRealTime(after: remaining) { [self] in
        state.withLock { $0.removeTimer(id) }?()
      }
    }
    if let report = progress.report { return .deadlock(report) }
    return .finished(state.withLock { $0.trace })
  }
}
