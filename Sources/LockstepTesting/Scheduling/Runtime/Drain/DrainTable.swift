/// Where a run is drained, and where it goes next when a stretch of draining pauses: the one table
/// the drain loop (`DrainLoop.swift`) follows. Pure; `DrainTableTests` checks every entry.
///
/// | place \ pause | `needsMainActor` | `yieldMainActor` | `budgetSpent` | `leaveMainActor` |
/// |---|---|---|---|---|
/// | ``DrainPlace/callerThread`` | → `callerOnMainActor` | → `callerOnMainActor` | → `thread` | → `thread` |
/// | ``DrainPlace/mainActor`` | stay | yield, stay | yield, stay | → `thread` |
/// | ``DrainPlace/callerOnMainActor`` | stay | yield, stay | yield, stay | → `thread` |
/// | ``DrainPlace/thread`` | → `threadInMainActor` | → `threadInMainActor` | stay | stay |
/// | ``DrainPlace/threadInMainActor`` | → `thread` | → `thread` | → `thread` | → `thread` |
/// | ``DrainPlace/mainThread`` | stay | stay | stay | hand to the drain thread, serve |
///
/// A run with a grace period waits in real time for jobs from other threads, which may need the
/// main actor: it starts on a thread (``start(caller:gracePeriod:)``), and a stretch that holds
/// the main actor leaves it before such a wait (`leaveMainActor`).
///
/// In an exploration, a stretch that took the main actor only for the run's main-actor jobs
/// (``DrainPlace/runsOnlyMainActorJobs``) leaves it too before any other job: a job holds the main
/// actor exactly when it is a main-actor job, or when the run's caller holds it for every job — not
/// when a time budget happened to run out after a main-actor job, which would make what the job may
/// do (take a lock where an exploration chooses, see `LockPoints.swift`) depend on timing. A plain
/// run goes on holding it (each move off and back costs a hand-off).
enum DrainTable {
  /// Where the first stretch of a run is drained.
  static func start(caller: DrainCaller, gracePeriod: Bool) -> DrainPlace {
    if gracePeriod { return caller == .blockingHoldingMainActor ? .mainThread : .thread }
    switch caller {
    case .nonisolated, .otherActor: return .callerThread
    case .mainActor: return .mainActor
    case .blocking: return .thread
    case .blockingHoldingMainActor: return .mainThread
    }
  }

  /// What the drain does after a stretch at `place` paused for `pause`.
  static func move(after pause: DrainPause, at place: DrainPlace) -> DrainMove {
    switch (place, pause) {
    case (.callerThread, .needsMainActor), (.callerThread, .yieldMainActor): .moveTo(.callerOnMainActor)
    case (.callerThread, .budgetSpent), (.callerThread, .leaveMainActor): .moveTo(.thread)
    case (.mainActor, .needsMainActor), (.callerOnMainActor, .needsMainActor): .stay
    case (.mainActor, .yieldMainActor), (.mainActor, .budgetSpent): .yieldThenStay
    case (.callerOnMainActor, .yieldMainActor), (.callerOnMainActor, .budgetSpent): .yieldThenStay
    case (.mainActor, .leaveMainActor), (.callerOnMainActor, .leaveMainActor): .moveTo(.thread)
    case (.thread, .needsMainActor), (.thread, .yieldMainActor): .moveTo(.threadInMainActor)
    case (.thread, .budgetSpent), (.thread, .leaveMainActor): .stay
    case (.threadInMainActor, _): .moveTo(.thread)
    case (.mainThread, .leaveMainActor): .handToDrainThreadServingMainActor
    case (.mainThread, _): .stay
    }
  }
}

/// Who starts a run, as far as where it can be drained goes.
enum DrainCaller: Equatable, Sendable {
  /// An async caller isolated to no actor.
  case nonisolated
  /// An async caller on the main actor.
  case mainActor
  /// An async caller isolated to another actor: it leaves it first (the run's jobs may need it).
  case otherActor
  /// A synchronous caller (the blocking form) on a thread that does not hold the main actor.
  case blocking
  /// A synchronous caller that holds the main actor (the main thread).
  case blockingHoldingMainActor
}

/// Where a stretch of a run is drained.
enum DrainPlace: Equatable, Sendable {
  /// The async caller's thread, inline, without the main actor: no hand-off, which would be most
  /// of what a run costs.
  case callerThread
  /// The main actor, in a `@MainActor` async caller: it runs every job of the run.
  case mainActor
  /// The main actor, in an async caller isolated to no actor that hopped there for the run's
  /// main-actor jobs.
  case callerOnMainActor
  /// A thread Lockstep blocks: its drain thread, or a blocking caller's thread, without the main
  /// actor.
  case thread
  /// One stretch of such a thread's draining run inside the main actor (``MainActorAccess``).
  case threadInMainActor
  /// A blocking caller's thread that holds the main actor.
  case mainThread

  /// Whether a stretch here holds the main actor.
  var holdsMainActor: Bool {
    switch self {
    case .mainActor, .callerOnMainActor, .threadInMainActor, .mainThread: true
    case .callerThread, .thread: false
    }
  }

  /// Whether a stretch here of an exploration holds the main actor for main-actor jobs only, and
  /// pauses before any other job (`leaveMainActor`).
  var runsOnlyMainActorJobs: Bool {
    switch self {
    case .callerOnMainActor, .threadInMainActor: true
    case .mainActor, .mainThread, .callerThread, .thread: false
    }
  }
}

/// What the drain does after a stretch paused.
enum DrainMove: Equatable, Sendable {
  /// Drains another stretch at the same place.
  case stay
  /// Lets the process's other main-actor work run, then drains another stretch holding it again.
  case yieldThenStay
  /// Goes on at another place.
  case moveTo(DrainPlace)
  /// The drain thread drains the run, while this thread, which holds the main actor, runs the
  /// main-actor work the run posts.
  case handToDrainThreadServingMainActor
}
