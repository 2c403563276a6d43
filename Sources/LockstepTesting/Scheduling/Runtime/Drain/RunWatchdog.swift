import Foundation

/// Fails a run whose thread is held by one job past the run's real-time bound — a call that never
/// returns (a semaphore wait, a lock, `queue.sync`), or a loop that never suspends — which the
/// drain, checking its bound between jobs, can never see: the run is quarantined, its failure
/// reported to the test that started it, its actors handed to the runs waiting for them
/// (``ActorClaims``), and its drain thread, if it is one of Lockstep's, given up.
///
/// One thread for the process, started with the executors, looks at the runs in progress every
/// ``checkInterval``: a run costs it nothing, and a run that ends in time is never looked at
/// closely. `RunWatchdogTests` checks a blocked run on the caller's thread and on the drain thread.
enum RunWatchdog {
  /// How often the watchdog looks at the runs in progress.
  static let checkInterval = Duration.milliseconds(100)

  /// How long one job must hold the thread past its run's bound before the run is given up.
  static var grace: Duration { FailureBoundScale.scaled(.milliseconds(250)) }

  /// Starts the watchdog's thread, once.
  static func start() { _ = thread }

  private static let thread: Void = {
    let thread = Thread {
      var watch = Watch()
      while true {
        // A poll, not synchronisation: a run costs the watchdog nothing.
        Thread.sleep(forTimeInterval: Double(checkInterval.components.attoseconds) / 1e18)
        for (run, outcome) in watch.check(ActiveRuns.inProgress, at: RealTime.now) {
          giveUp(run, outcome)
        }
      }
    }
    thread.name = "Lockstep run watchdog"
    thread.start()
  }()

  /// What the watchdog saw of each run past its bound, in its own thread's memory.
  private struct Watch {
    /// A run's step count when it was first seen past its bound with that job running, and when.
    private var seen: [ObjectIdentifier: (steps: Int, since: ContinuousClock.Instant)] = [:]

    /// The runs to give up now, with their outcome.
    mutating func check(
      _ runs: [(DeterministicRun, ContinuousClock.Instant)], at now: ContinuousClock.Instant
    )
      -> [(DeterministicRun, DrainOutcome)]
    {
      var givenUp: [(DeterministicRun, DrainOutcome)] = []
      var stillSeen: [ObjectIdentifier: (steps: Int, since: ContinuousClock.Instant)] = [:]
      for (run, deadline) in runs where now >= deadline {
        let key = ObjectIdentifier(run)
        let progress = run.state.withLock { $0.jobInProgress }
        guard progress.task != nil else { continue }
        if let earlier = seen[key], earlier.steps == progress.steps {
          let blockedFor = earlier.since.duration(to: now)
          if blockedFor >= RunWatchdog.grace, let outcome = run.abandonBlockedJob(blockedFor: blockedFor) {
            givenUp.append((run, outcome))
          } else {
            stillSeen[key] = earlier
          }
        } else {
          stillSeen[key] = (progress.steps, now)
        }
      }
      seen = stillSeen
      return givenUp
    }
  }

  /// Reports the run's failure to its test and gives up its drain thread if it is the one
  /// blocked. The blocked caller itself stays where it is.
  private static func giveUp(_ run: DeterministicRun, _ outcome: DrainOutcome) {
    DrainThread.shared.replace(ifDraining: run)
    if let failure = outcome.failure(timeout: run.timeout, site: run.site) {
      reportIssue("\(failure)", at: run.site, context: run.issueContext)
    }
  }
}
