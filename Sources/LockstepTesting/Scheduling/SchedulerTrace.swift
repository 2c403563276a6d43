/// The record of one deterministic run: every job the scheduler executed, in order, and the task
/// it belonged to.
///
/// Tasks are numbered 1, 2, 3… in the order the run first saw them, so traces of two runs of the
/// same workload compare equal exactly when the scheduler made the same choices:
///
/// ```swift
/// let first = try await runDeterministically(seed: 7) { await model.refresh() }
/// let again = try await runDeterministically(seed: 7) { await model.refresh() }
/// #expect(first.trace == again.trace)
/// ```
public struct SchedulerTrace: Sendable, Equatable, CustomStringConvertible {
  /// One executed job.
  ///
  /// ```swift
  /// for step in outcome.trace.steps where step.isMainActor { print(step) }
  /// ```
  public struct Step: Sendable, Equatable, CustomStringConvertible {
    /// The run-local number of the task the job belonged to (1 is the first task seen), or `nil`
    /// for a job that is not a task (an actor's processing job, for example).
    ///
    /// ```swift
    /// let tasks = Set(outcome.trace.steps.compactMap(\.task))
    /// ```
    public let task: Int?
    /// Whether the job ran isolated to the main actor.
    ///
    /// ```swift
    /// let mainJobs = outcome.trace.steps.filter(\.isMainActor).count
    /// ```
    public let isMainActor: Bool
    /// The virtual time at which it ran, measured from the start of the run.
    ///
    /// ```swift
    /// #expect(outcome.trace.steps.last?.time == .seconds(600))
    /// ```
    public let time: Duration
    /// Whether virtual time jumped forward to wake this job from a sleep.
    ///
    /// ```swift
    /// let wakeUps = outcome.trace.steps.filter(\.wokeFromSleep).count
    /// ```
    public let wokeFromSleep: Bool

    /// `task 3 @MainActor at 80 ms (woke)`.
    ///
    /// ```swift
    /// print(outcome.trace.steps[0])   // "task 1 at 0 s"
    /// ```
    public var description: String {
      var text = task.map { "task \($0)" } ?? "job"
      if isMainActor { text += " @MainActor" }
      text += " at \(time.lockstepText)"
      if wokeFromSleep { text += " (woke)" }
      return text
    }
  }

  /// Every executed job, in execution order.
  ///
  /// ```swift
  /// print(outcome.trace.steps.count, "jobs")
  /// ```
  public internal(set) var steps: [Step] = []
  /// The names of the tasks that had one and were observed by the scheduler, by task number.
  ///
  /// ```swift
  /// print(outcome.trace.taskNames[2] ?? "unnamed")   // "load profile"
  /// ```
  public internal(set) var taskNames: [Int: String] = [:]
  /// Where the run's unnamed tasks were created, by task number, for the tasks the runtime's task
  /// creation reported (``TaskCreationHook``).
  var taskOrigins: [Int: TaskOrigin] = [:]
  /// Whether the run's jobs read virtual time from `ContinuousClock.now`, `SuspendingClock.now`
  /// and `Date()` (``VirtualNow``); when `false`, they read the real clocks and each sleep's
  /// duration was recovered from real-clock readings.
  public internal(set) var readsVirtualNow = false

  /// What Lockstep learned during the run about what each task did: waits at its primitives,
  /// sleeps, notes, injected cancellations, finished tasks. Read it through ``timeline``.
  var events: [Event] = []

  /// One thing a task did during a step.
  struct Event: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
      case waits(Waiting)
      case sleeps(Duration)
      case note(String)
      case cancelled
      case finished
    }
    /// The index of the step in ``steps``.
    let step: Int
    let task: Int
    let kind: Kind
  }

  /// The run as a person would write it down: one line a step, saying which task did what.
  ///
  /// ```swift
  /// let outcome = try await runDeterministically(seed: 4) { await model.reloadTwice() }
  /// print(outcome.trace.timeline)
  /// ```
  public var timeline: Timeline { Timeline(self) }

  /// The task numbers in execution order: the compact form used to compare interleavings.
  ///
  /// ```swift
  /// print(outcome.trace.taskOrder)   // [1, 2, 1, 3, 2]
  /// ```
  public var taskOrder: [Int] { steps.map { $0.task ?? 0 } }

  /// One line per step.
  ///
  /// ```swift
  /// print(outcome.trace)   // "1. task 1 at 0 s\n2. task 2 …"
  /// ```
  public var description: String {
    steps.enumerated().map { index, step in
      let name = step.task.flatMap { taskNames[$0] }.map { " \"\($0)\"" } ?? ""
      return "\(index + 1). \(step)\(name)"
    }.joined(separator: "\n")
  }

  /// Two traces are equal when they executed the same steps; task names are not compared.
  ///
  /// ```swift
  /// #expect(first.trace == again.trace)
  /// ```
  public static func == (lhs: SchedulerTrace, rhs: SchedulerTrace) -> Bool {
    lhs.steps == rhs.steps
  }
}
