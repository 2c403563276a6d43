/// Task events: what the running task did, as Lockstep's primitives, the code under test and the
/// runtime report it — waits, failures, notes, names, creations, actor switches.
extension RunState {
  /// What the shell does as the running task waits at a Lockstep primitive.
  enum WaitAction: Equatable {
    /// The task waits.
    case wait
    /// Exploration injects a cancellation here: cancel the running task.
    case cancelTask
  }

  /// What the shell does as a job of the run switches to a default actor.
  enum ActorSwitchAction: Equatable {
    /// The run is over: nothing.
    case none
    /// The run, still running, claims the actor (``ActorClaims``).
    case claim
  }

  /// What the shell does with the actors the run claimed, as it ends.
  enum ClaimsEndAction: Equatable {
    /// The run claimed none.
    case none
    /// Let go of the run's claims.
    case release
  }

  /// The running task waits at a Lockstep primitive for `what`.
  mutating func noteWait(for what: Waiting, byTask id: UInt64?) -> WaitAction {
    guard let task = eventTask(id), task != 0 else { return .wait }
    tasks[task].waitingOn = what
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .waits(what)))
    guard cancellation.shouldCancel(task: task) else { return .wait }
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .cancelled))
    return .cancelTask
  }

  /// A check failed, or an issue was reported, while the running step ran.
  mutating func noteFailure(byTask id: UInt64?) {
    guard let task = eventTask(id), !trace.steps.isEmpty else { return }
    trace.events.append(SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .failed))
  }

  /// The running task finished (a task of a `TestTaskFactory`, or the body).
  mutating func noteFinished(byTask id: UInt64?) {
    guard let task = eventTask(id), task != 0 else { return }
    tasks[task].finished = true
    trace.events.append(SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .finished))
  }

  /// A job of the run switches to a default actor.
  mutating func claimingActors() -> ActorSwitchAction {
    guard phase == .running else { return .none }
    claimsActors = true
    return .claim
  }

  /// The run ends.
  mutating func endClaimingActors() -> ClaimsEndAction {
    defer { claimsActors = false }
    return claimsActors ? .release : .none
  }

  /// A job of the running step waited for another run's actor (``ActorClaims``), or went on beside
  /// it.
  mutating func noteWaitForOtherRun(_ wait: OtherRunWait) {
    trace.waitsForOtherRuns.append((step: max(trace.steps.count - 1, 0), wait: wait))
  }

  /// A note from the code under test or a Lockstep primitive, about what the running task did.
  mutating func note(_ text: String, byTask id: UInt64?) {
    guard let task = eventTask(id) else { return }
    trace.events.append(
      SchedulerTrace.Event(step: trace.steps.count - 1, task: task, kind: .note(text)))
  }

  /// The number of the task an event comes from: the current task when the runtime tells it
  /// (work an actor's job runs for a task), else the task of the running job.
  func eventTask(_ id: UInt64?) -> Int? {
    guard runningTask != nil else { return nil }
    if let id, let number = tasks.number(of: id) { return number }
    return runningTask
  }

  // MARK: Names

  /// Records the name of a task the scheduler saw running (`nil`: the task has none).
  mutating func recordName(_ name: String?, forTask id: UInt64) {
    guard let number = tasks.name(name, forTask: id), let name else { return }
    // Room for a typical run's named tasks at once, rather than a rehash at every doubling.
    if trace.taskNames.isEmpty { trace.taskNames.reserveCapacity(8) }
    trace.taskNames[number] = name
  }

  /// Whether the name of the task with runtime id `id` is still to be looked up.
  func needsName(forTask id: UInt64) -> Bool { tasks.needsName(forTask: id) }

  // MARK: Creations

  /// The runtime created the task with runtime id `id` while one of the run's jobs ran
  /// (``TaskCreationHook``). A task whose first job has not reached the run yet is remembered
  /// until it does, at most ``unseenCreationLimit`` of them.
  /// Task `creator` (the task whose work the drain thread runs, if any) created task `id`.
  mutating func noteCreated(taskID id: UInt64, _ creation: TaskCreation, creator: UInt64? = nil) {
    switch JobRouter.route(.taskCreation(task: id), in: self, actingTask: { creator }) {
    case .platform: noteCreatedOutside(taskID: id)
    case .held: break
    case .run(let number): apply(creation, toTask: number, id: id)
    case .runRegistering:
      if unseenCreations.count < Self.unseenCreationLimit { unseenCreations[id] = creation }
    }
  }

  /// The most tasks created in a run whose first job has not reached it that the run remembers:
  /// a task that runs elsewhere (on an executor it prefers) never reaches it.
  static var unseenCreationLimit: Int { 256 }

  /// How many tasks created in the run have not reached it yet.
  var unseenCreationCount: Int { unseenCreations.count }

  /// What is known of task `number`'s creation, as its first job reaches the run or at once.
  mutating func apply(_ creation: TaskCreation, toTask number: Int, id: UInt64) {
    if tasks[number].origin == nil {
      tasks[number].origin = creation.origin
      // A timeline names a task by its name when it has one, by its origin otherwise.
      if creation.name == nil {
        if trace.taskOrigins.isEmpty { trace.taskOrigins.reserveCapacity(8) }
        trace.taskOrigins[number] = creation.origin
      }
    }
    // A task's name is known now, `nil` included: it is not looked up again.
    recordName(creation.name, forTask: id)
  }

  /// A task factory created the task with runtime id `id` at `site`, named `name`.
  mutating func noteCreated(taskID id: UInt64, name: String?, at site: CallSite) {
    guard let number = tasks.number(of: id) else { return }
    tasks[number].createdAt = site
    if let name { recordName(name, forTask: id) }
  }

  /// A task was created outside the run while it is in progress (on a thread that does not drain
  /// it): its jobs are not the run's.
  mutating func noteCreatedOutside(taskID id: UInt64) {
    guard phase == .running, createdOutside.count < Self.createdOutsideLimit else { return }
    createdOutside.insert(id)
  }

  /// The most tasks created outside the run that the run remembers.
  static var createdOutsideLimit: Int { 1 << 16 }
}
