import Dispatch

/// The drain loop: drains a run a stretch at a time (``DeterministicRun/drain(until:holding:)``)
/// and, when a stretch pauses, goes where ``DrainTable`` says. Async callers go through
/// ``drain(from:)``, threads Lockstep blocks through ``drainBlocking(from:)``; both follow the
/// same table, and a main-actor stretch always carries the ``MainActorLease`` of the place that
/// holds the main actor.
extension DeterministicRun {
  /// How long a stretch is drained on a thread Lockstep does not own (an async caller's, the main
  /// actor) before it moves on or yields: a thread is not held for longer than a short CPU-bound
  /// function would hold it. Almost every run of a test is over long before.
  static let inlineBudget = Duration.milliseconds(2)

  /// Drains the run from an async caller, starting at `place`, until it is over.
  nonisolated(nonsending) func drain(from place: DrainPlace) async -> DrainOutcome {
    switch place {
    case .callerThread: return await drainOnCallersThread()
    case .mainActor, .callerOnMainActor: return await drainOnMainActor(at: place)
    case .thread, .threadInMainActor, .mainThread: return await DrainThread.shared.drain(self)
    }
  }

  /// Drains the run from a caller isolated to an actor other than the main actor: it leaves the
  /// actor first (the run's jobs may need it), and leaving a default actor for the global executor
  /// is a switch on the same thread, cheaper than handing the run to the drain thread.
  @concurrent func drainOffCallersActor(from place: DrainPlace) async -> DrainOutcome {
    await drain(from: place)
  }

  /// One stretch on the caller's thread, in the caller's (nonisolated) context, in a place
  /// ``InlineDrains`` gave it.
  nonisolated(nonsending) private func drainOnCallersThread() async -> DrainOutcome {
    let stretch = drain(until: RealTime.now + Self.inlineBudget, holding: nil)
    InlineDrains.giveBack()
    switch stretch {
    case .ended(let outcome): return outcome
    case .retired: preconditionFailure("only a helper's turn ends before its run")
    case .paused(let pause):
      guard case .moveTo(let next) = DrainTable.move(after: pause, at: .callerThread) else {
        preconditionFailure("the drain table keeps no run on a caller's thread")
      }
      return await drain(from: next)
    }
  }

  /// Stretches holding the main actor at `place`, with the main actor yielded to the process's
  /// other main-actor work between two of them.
  @MainActor private func drainOnMainActor(at place: DrainPlace) async -> DrainOutcome {
    while true {
      let lease = MainActorLease.held()
      switch drain(
        until: RealTime.now + Self.inlineBudget, holding: lease,
        onlyMainActorJobs: place.runsOnlyMainActorJobs)
      {
      case .ended(let outcome): return outcome
      case .retired: preconditionFailure("only a helper's turn ends before its run")
      case .paused(let pause):
        switch DrainTable.move(after: pause, at: place) {
        case .stay: continue
        case .yieldThenStay: await Task.yield()  // fairness to other main-actor work, not synchronisation
        case .moveTo(let next): return await drain(from: next)
        case .handToDrainThreadServingMainActor: return await DrainThread.shared.drain(self)
        }
      }
    }
  }

  /// Drains the run on this thread, which Lockstep blocks (the drain thread, or a blocking
  /// caller's), starting at `place`, until it is over.
  func drainBlocking(from place: DrainPlace) -> DrainOutcome {
    // Only a helper's turn ends before the run does.
    drainOnThisThread(from: place) ?? .timedOut(state.withLock { $0.trace }, tasks: [])
  }

  /// Drains the run on a helper thread while a job of it is parked (``ParkedJobs``), until the
  /// helper's turn ends — or the run does, which the helper then ends for its caller.
  func drainAsHelper() {
    drainerFields = Self.helperFields
    if let outcome = drainOnThisThread(from: .thread) { endWhileParked(outcome) }
  }

  /// ``drainBlocking(from:)``; `nil` when this thread's turn ended first (a helper's).
  private func drainOnThisThread(from place: DrainPlace) -> DrainOutcome? {
    var place = place
    while true {
      let stretch: DrainStretch
      switch place {
      case .thread:
        stretch = drain(until: nil, holding: nil)
      case .mainThread:
        let lease = MainActorLease.heldHere()
        stretch = drain(until: nil, holding: lease)
      case .threadInMainActor:
        var inMainActor: DrainStretch?
        let ran = MainActorAccess.runBlocking(until: deadline) { [self] lease in
          inMainActor = drain(
            until: RealTime.now + Self.inlineBudget, holding: lease, onlyMainActorJobs: true)
        }
        guard ran, let inMainActor else { return failWithoutMainActor() }
        stretch = inMainActor
      case .callerThread, .mainActor, .callerOnMainActor:
        preconditionFailure("a blocked thread drains at no async caller's place")
      }
      switch stretch {
      case .ended(let outcome): return outcome
      case .retired: return nil
      case .paused(let pause):
        switch DrainTable.move(after: pause, at: place) {
        case .stay, .yieldThenStay: continue
        case .moveTo(let next): place = next
        case .handToDrainThreadServingMainActor: return drainOnDrainThreadServingMainActor()
        }
      }
    }
  }

  /// Lets the drain thread drain the run while this thread, which holds the main actor, runs the
  /// main-actor work the run posts: the run must wait in real time for outside jobs, which must not
  /// happen while holding the main actor (those jobs may need it).
  private func drainOnDrainThreadServingMainActor() -> DrainOutcome {
    let outcome = Locked<DrainOutcome?>(nil)
    let signal = DispatchSemaphore(value: 0)
    DrainThread.shared.submit(self) { drained in
      outcome.withLock { $0 = drained }
      signal.signal()
    }
    MainActorAccess.waitServing(signal) { outcome.withLock { $0 != nil } }
    return outcome.withLock { $0! }
  }
}

extension DrainCaller {
  /// The caller of an async entry point isolated to `actor`.
  init(isolatedTo actor: (any Actor)?) {
    guard let actor else {
      self = .nonisolated
      return
    }
    self = ObjectIdentifier(actor) == ObjectIdentifier(MainActor.shared) ? .mainActor : .otherActor
  }
}
