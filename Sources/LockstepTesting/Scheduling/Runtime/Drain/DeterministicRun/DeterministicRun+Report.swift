/// What a report of the run says of its tasks: where each waits, read outside the run's lock.
extension DeterministicRun {
  func makeRealClockSleep() -> RealClockSleep {
    state.withLock { state in
      RealClockSleep(
        site: site, task: state.realClockSleeper.map { state.taskDescription($0) } ?? "a task",
        trace: state.trace)
    }
  }

  /// Reads where each suspended task waits outside the lock: the run's tasks run on this thread
  /// only, and it is between two jobs.
  /// The run's tasks as a report lists them, with where each waits, and a last line saying why
  /// it does not when where they wait cannot be read here: for runs that time out or reach their
  /// step limit.
  func unfinishedTasks() -> [String] {
    let (waits, notShown) = readWaits()
    let (tasks, outside) = state.withLock { ($0.taskDescriptions(waits: waits), $0.outsideWork.inFlight) }
    return outside.map { "outside work still running: " + $0.description } + tasks
      + (notShown.map { ["(Where each task waits is not shown: \($0).)"] } ?? [])
  }

  /// The deadlock report; `found`, the report made when the deadlock was found, gives the tasks'
  /// lines of a report made after the body's unwind.
  func makeReport(quarantined: Bool, found: DeterministicDeadlock? = nil) -> DeterministicDeadlock {
    let (waits, notShown) = found == nil ? readWaits() : ([:], found?.waitsNotShown)
    return state.withLock { state in
      var report = DeterministicDeadlock(
        site: site, tasks: found?.tasks ?? state.taskDescriptions(waits: waits), virtualTime: state.now,
        trace: state.trace, quarantined: quarantined, waitsNotShown: notShown)
      if let found { report.stepsWhenFound = found.trace.steps.count }
      report.sawWorkFromOutside = gracePeriod == .zero && state.jobsFromOtherThreads > 0
      return report
    }
  }

  /// Where each task a report describes waits, and why it cannot be read here if it cannot;
  /// symbolicated (with where the tasks were created) outside the run's lock, so that describing
  /// the tasks under it finds every name ready.
  private func readWaits() -> (waits: [Int: [String]], notShown: String?) {
    let (suspended, origins, parked, locks) = state.withLock {
      ($0.suspendedTaskObjects, $0.reportedTaskOrigins, $0.parked.waits, $0.locks)
    }
    TaskOriginSymbols.prepare(origins)
    let notShown = suspended.isEmpty ? nil : SuspendedTaskStacks.unavailability
    var waits = SuspendedTaskStacks.lines(for: suspended)
    let threads = sidelines.withLock { $0.parkedThreads }
    for wait in parked where wait.waitingTask != 0 {
      guard let frames = threads[wait.id]?.frames else { continue }
      let lock = LockPoints.line(for: wait, locks: locks) { "task \($0)" }
      waits[wait.waitingTask] = (lock.map { [$0] } ?? []) + ParkedJobs.siteLines(frames, call: wait.kind)
    }
    return (waits, notShown)
  }
}
