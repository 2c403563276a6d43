/// The record of one deterministic run: every job the scheduler executed, in order, and the task
/// it belonged to. Tasks are numbered in the order the run first saw them, so two runs' traces
/// are equal exactly when the scheduler made the same choices.
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
    public let task: Int?
    /// Whether the job ran isolated to the main actor.
    public let isMainActor: Bool
    /// The virtual time at which it ran, measured from the start of the run.
    public let time: Duration
    /// Whether virtual time jumped forward to wake this job from a sleep.
    public let wokeFromSleep: Bool
    /// The index in ``SchedulerTrace/steps`` of the step that was running when this job was
    /// handed to the run — the step that started, resumed or woke its task — or -1 when none was
    /// (a job that came from outside the run). Not compared: a job from another thread arrives
    /// during whichever step runs then.
    var enqueuedAt: Int32 = -1
    /// Where the step's task was suspended when its job returned; ``SuspensionSite/none`` when it
    /// finished, or was not read. Not compared, as addresses differ between processes.
    var suspendedAt = SuspensionSite.none
    /// What the job was, when it was not a task's: an actor's job, the wake-up of a task after
    /// `Task.yield()`, another job of the runtime.
    var kindOfJob = KindOfJob.task

    /// The index of the step that handed this job to the run, if a step did.
    var enqueuedBy: Int? { enqueuedAt < 0 ? nil : Int(enqueuedAt) }

    /// `task 3 @MainActor at 80 ms (woke)`.
    public var description: String {
      var text = task.map { "task \($0)" } ?? "job"
      if isMainActor { text += " @MainActor" }
      text += " at \(time.lockstepText)"
      if wokeFromSleep { text += " (woke)" }
      return text
    }

    /// Two steps are equal when they ran the same task's job in the same place at the same time.
    public static func == (lhs: Step, rhs: Step) -> Bool {
      lhs.task == rhs.task && lhs.isMainActor == rhs.isMainActor && lhs.time == rhs.time
        && lhs.wokeFromSleep == rhs.wokeFromSleep
    }
  }

  /// A task that ran inside another job (an actor's), and where it was left suspended.
  struct RanTask: Sendable, Equatable {
    let task: Int
    let site: SuspensionSite
  }

  /// Every executed job, in execution order.
  public internal(set) var steps: [Step] = []
  /// For the actor's jobs among ``steps``, the tasks seen to run in them (queued on the actor while
  /// it was busy), by the executor switches they made there, each with where it was left and the
  /// index of its step, in step order. Apart from the steps, which stay plain values; one flat
  /// array, appended to after each actor's job (no table to hash into on every step).
  var tasksRanInActorJobs: [(step: Int, ran: RanTask)] = []

  /// The tasks seen to run in each actor's job, by the index of its step.
  var tasksRanByStep: [Int: [RanTask]] {
    var byStep: [Int: [RanTask]] = [:]
    for (step, ran) in tasksRanInActorJobs { byStep[step, default: []].append(ran) }
    return byStep
  }
  /// The names of the tasks that had one and were observed by the scheduler, by task number.
  public internal(set) var taskNames: [Int: String] = [:]
  /// Where the run's unnamed tasks were created, by task number, for the tasks the runtime's task
  /// creation reported (``TaskCreationHook``).
  var taskOrigins: [Int: TaskOrigin] = [:]
  /// Whether the run's jobs read virtual time from `ContinuousClock.now`, `SuspendingClock.now`
  /// and `Date()` (``VirtualNow``); when `false`, they read the real clocks and each sleep's
  /// duration was recovered from real-clock readings.
  public internal(set) var readsVirtualNow = false
  /// How many actor jobs a quarantined run holds: those actors stay busy for good.
  var actorJobsLeftBusy = 0
  /// The waits of the run's jobs for actors that other runs in progress used (``ActorClaims``), by
  /// the index of the step that waited. Not compared: how long a run waits is real time.
  var waitsForOtherRuns: [(step: Int, wait: OtherRunWait)] = []
  /// The locks of the code under test that were no scheduling points (``LockPoints``): what an
  /// exploration says it did not interleave.
  var locksNotScheduled: Set<String> = []

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
      /// A check failed (or an issue was reported) during the step.
      case failed
    }
    /// The index of the step in ``steps``.
    let step: Int
    let task: Int
    let kind: Kind
  }

  /// A new run's trace that takes this one's buffers, emptied, leaving this trace without them:
  /// each run of an exploration takes the trace of the schedule before, so that its buffers are
  /// not freed and allocated again.
  mutating func moveBuffersToNewTrace() -> SchedulerTrace {
    var trace = SchedulerTrace()
    swap(&trace.steps, &steps)
    trace.steps.removeAll(keepingCapacity: true)
    swap(&trace.events, &events)
    trace.events.removeAll(keepingCapacity: true)
    swap(&trace.tasksRanInActorJobs, &tasksRanInActorJobs)
    trace.tasksRanInActorJobs.removeAll(keepingCapacity: true)
    swap(&trace.taskOrigins, &taskOrigins)
    trace.taskOrigins.removeAll(keepingCapacity: true)
    return trace
  }

  /// The run as a person would write it down: one line a step, saying which task did what.
  public var timeline: Timeline { Timeline(self) }

  /// The run as a picture, an SVG document: one lane per task, the steps down the page, an arrow
  /// where a step of one task started or resumed another, and the steps where a check failed
  /// marked. See <doc:FindingRaces#Read-the-picture>.
  public var svg: String {
    TimelinePicture(
      timeline: timeline, title: "Deterministic run: \(steps.count) steps", replay: nil, failures: []
    ).svg
  }

  /// The task numbers in execution order: the compact form used to compare interleavings.
  public var taskOrder: [Int] { steps.map { $0.task ?? 0 } }

  /// One line per step.
  public var description: String {
    steps.enumerated().map { index, step in
      let name = step.task.flatMap { taskNames[$0] }.map { " \"\($0)\"" } ?? ""
      return "\(index + 1). \(step)\(name)"
    }.joined(separator: "\n")
  }

  /// Two traces are equal when they executed the same steps; task names are not compared.
  public static func == (lhs: SchedulerTrace, rhs: SchedulerTrace) -> Bool {
    lhs.steps == rhs.steps
  }
}
