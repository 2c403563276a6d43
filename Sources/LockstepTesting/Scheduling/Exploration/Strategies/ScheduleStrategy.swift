/// What an exploration strategy is to the explorer loop: after each schedule it is told what that
/// schedule did, and it says what to run next — so the loop knows no strategy, and each strategy
/// lives in a file of its own (random, PCT, exhaustive, replay, and the pinned tokens replayed
/// before any of them).
protocol ScheduleStrategy {
  /// The schedule to run next, given what the previous one did (`nil` before the first), or that
  /// the strategy is done.
  mutating func next(after previous: ScheduleReport?) -> StrategyStep

  /// Whether a failing schedule is simplified before it is reported (not for a replay, which must
  /// report the schedule it was given).
  var shrinksFailures: Bool { get }

  /// For an exhaustive search, what is left of it after the schedules so far (see
  /// ``SearchProgress``); `nil` for the other strategies.
  var progress: SearchProgress? { get }

  /// For a sharded exhaustive search, the schedules this shard ran in each subtree so far, by
  /// subtree number (0 for a subtree it skipped or ran only for its shape); `nil` otherwise.
  var subtreeSchedules: [Int]? { get }
}

extension ScheduleStrategy {
  var shrinksFailures: Bool { true }
  var progress: SearchProgress? { nil }
  var subtreeSchedules: [Int]? { nil }
}

/// One schedule to run: who chooses at its choice points, and where exploration cancels a task.
struct PlannedSchedule {
  var picker: any SchedulePicker
  /// The Lockstep wait (0-based, of tasks other than the body) at which to cancel the waiting
  /// task, or `nil` for none.
  var cancelAtWait: Int?
  /// The token this schedule replays, when it is a replay: the run then checks that it follows
  /// the token's schedule.
  var replaying: ReplayToken?
  /// For a seeded strategy, the schedule's number (from 1) among all of the exploration's
  /// schedules, whatever the shard: its seed derives from it.
  var number: Int?
  /// For a sharded exhaustive search, the subtree the schedule lies in, numbered from 0 in
  /// depth-first order, the same in every shard (see ``SearchSplit``).
  var subtree: Int?
  /// Its number among the schedules of its subtree, from 1, in depth-first order.
  var inSubtree: Int?
  /// Whether a sharded exhaustive search runs it only to learn the shape of the search tree above
  /// the split: it lies in another shard's subtree (see ``SearchSplit``).
  var findsShape = false
  /// For a token pinned with `pinned:`, its position in the list (from 0).
  var pinned: Int?
  /// For a replay up to a crash, the step that crashed the process in the recorded run: the run
  /// stops before it.
  var stopBeforeStep: Int?
}

/// What a schedule that ran did, as far as strategies care.
struct ScheduleReport: Equatable {
  /// The choices made at its choice points.
  var record: ScheduleRecord
  /// The Lockstep waits of tasks other than the body it reached: where cancellation can be
  /// injected.
  var waits: Int
  /// Whether a guided schedule could not follow its plan.
  var diverged = false
}

/// What a strategy says after each schedule.
enum StrategyStep {
  case run(PlannedSchedule)
  /// Nothing more to run: `complete` says whether every schedule the strategy stands for ran;
  /// `misuse` is a problem with how the strategy was used, reported after the exploration.
  case done(complete: Bool, misuse: String? = nil)
}
