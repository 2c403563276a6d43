/// How a run's drain ended.
enum DrainOutcome {
  case finished(SchedulerTrace)
  case deadlock(DeterministicDeadlock)
  /// The run's real-time bound elapsed with the body still running; `tasks` are the run's tasks
  /// as a report lists them, with where each waits.
  case timedOut(SchedulerTrace, tasks: [String])
  /// The run executed its step limit without the body finishing (exploration's `maxSteps`).
  case tooManySteps(SchedulerTrace, tasks: [String])
  /// A replay up to a crash stopped before the step that crashed the process in the recorded run
  /// (``ExplorationStrategy/replayUpToCrash(_:atStep:)``).
  case stoppedBeforeCrash(SchedulerTrace, tasks: [String])
  /// A task slept until deadlines computed from the real clock: the run stopped.
  case realClockSleep(RealClockSleep)
  /// A main-actor job of the run waited for the main actor until the run's bound and never got it.
  case mainActorUnavailable(SchedulerTrace)
  /// A job held the run's thread past the run's bound (``RunWatchdog``): `blocked` says whose.
  case blocked(SchedulerTrace, blocked: String, tasks: [String])

  var trace: SchedulerTrace {
    switch self {
    case .finished(let trace), .timedOut(let trace, _), .tooManySteps(let trace, _),
      .stoppedBeforeCrash(let trace, _), .mainActorUnavailable(let trace), .blocked(let trace, _, _):
      trace
    case .deadlock(let report): report.trace
    case .realClockSleep(let error): error.trace
    }
  }

  /// What went wrong with the run itself, as the error a run throws and the words a failing
  /// schedule reports; `nil` when the run finished. The one place that puts an outcome into words.
  func failure(timeout: Duration, site: CallSite) -> (any Error)? {
    switch self {
    case .finished: nil
    case .deadlock(let report): report
    case .timedOut(let trace, let tasks):
      WaitTimeoutError(
        awaited: "the deterministic run's body to finish", timeout: timeout, site: site,
        pending: [
          "\(trace.steps.count) jobs ran; the body was still running (a loop that never "
            + "stops, or waits for outside jobs that never came); its jobs are quarantined"
            + Self.actorsLeftBusy(trace)
        ] + tasks, isVirtualTime: false, scale: FailureBoundScale.current)
    case .tooManySteps(let trace, let tasks):
      QuarantinedStop.stepLimitReached(
        steps: trace.steps.count, actorsLeftBusy: Self.actorsLeftBusy(trace), tasks: tasks)
    case .stoppedBeforeCrash(let trace, let tasks):
      QuarantinedStop.stoppedBeforeCrash(
        step: trace.steps.count + 1, actorsLeftBusy: Self.actorsLeftBusy(trace), tasks: tasks)
    case .mainActorUnavailable:
      WaitTimeoutError(
        awaited: "the main actor, for a main-actor job of the deterministic run", timeout: timeout,
        site: site,
        pending: [
          "the main actor never became free: something holds it without ever suspending (a "
            + "synchronous wait on the main thread, or a process whose main thread does not run "
            + "the main queue); the run's tasks are quarantined"
        ], isVirtualTime: false, scale: FailureBoundScale.current)
    case .realClockSleep(let error): error
    case .blocked(let trace, let blocked, let tasks):
      WaitTimeoutError(
        awaited: "the deterministic run's body to finish", timeout: timeout, site: site,
        pending: [
          "\(blocked) never returned from its job: the run's thread is blocked in a call that "
            + "never returns (a semaphore or group wait, a lock, `queue.sync`, a blocking read) or "
            + "busy in a loop that never suspends; where exactly cannot be read from another "
            + "thread. Lockstep failed the run after \(trace.steps.count) jobs and let the other "
            + "runs go on; the thread stays where it is, and the run's tasks are quarantined"
        ] + tasks, isVirtualTime: false, scale: FailureBoundScale.current)
    }
  }
}

extension DrainOutcome {
  /// What a report says of the actors a quarantined run left busy: nothing when it left none.
  fileprivate static func actorsLeftBusy(_ trace: SchedulerTrace) -> String {
    guard trace.actorJobsLeftBusy > 0 else { return "" }
    return ", and so are \(trace.actorJobsLeftBusy) actor job(s) still ready after Lockstep ran "
      + "\(DeterministicRun.actorReleaseLimit) to free their actors: those actors stay busy for good, "
      + "and a later call to one of them (a shared actor or a singleton) waits forever"
  }
}
