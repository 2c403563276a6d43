/// The real time an exploration has spent, for its time budget
/// (``ExplorationStrategy/forAtMost(_:)``, `LOCKSTEP_EXPLORE_TIME`).
///
/// It reads the continuous clock; Lockstep's own tests replace it in a task with a clock that
/// moves as they say (``reading``), so that a test of the budget needs no real time to pass.
struct ExplorationClock {
  private let started: Duration

  /// Starts counting now.
  init() { started = Self.now() }

  /// The time since ``init()``.
  var elapsed: Duration { Self.now() - started }

  /// Replaces the real clock in a task: the time since some fixed origin.
  @TaskLocal static var reading: (@Sendable () -> Duration)?

  private static let origin = RealTime.now

  private static func now() -> Duration { reading?() ?? origin.duration(to: RealTime.now) }
}
