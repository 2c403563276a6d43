/// A deterministic run told step by step: which task ran, and what it did — started, waited at a
/// Lockstep primitive, slept, was resumed, noted a write, finished. Any run's timeline is
/// ``SchedulerTrace/timeline``; code under test adds lines with ``note(_:)``. See
/// <doc:FindingRaces#Read-the-report>.
///
/// ```swift
/// let outcome = try await runDeterministically { await model.reload() }
/// print(outcome.trace.timeline)
/// //  1. test body   started, waits for call 1 of "loader" to complete
/// //  2. "reload 1"  started, …
/// ```
public struct Timeline: Sendable, Equatable, CustomStringConvertible {
  /// One step of the run: the job of one task, and what that task did in it.
  ///
  /// ```swift
  /// for entry in timeline.entries where entry.taskName == "reload 1" { print(entry.actions) }
  /// ```
  public struct Entry: Sendable, Equatable, CustomStringConvertible {
    /// The step's number, from 1.
    public let step: Int
    /// The run-local number of the task; the body is task 1. 0 for a step that ran no task's
    /// job: an actor's job with no task's event, or the job that resumes a task after
    /// `Task.yield()`.
    public let task: Int
    /// How the timeline names the task: `test body`, its name in quotes, or `task 3`, followed by
    /// where it was created when the run knows (`task 3 (created in startWorkers() at …)`).
    public let taskName: String
    /// The virtual time of the step, from the start of the run.
    public let time: Duration
    /// What the task did in the step, in order: `started`, `resumed`, `woke from its sleep`,
    /// `waits for Gate("save") to open`, a note, `finished`.
    public let actions: [String]
    /// How the task came to run in this step, without the executor: `started`, `resumed` or
    /// `woke from its sleep`; `actions` begins with it.
    let arrival: String
    /// Where the step ran; `actions[0]` names it unless it is the cooperative pool.
    let executor: Executor
    /// The number of the step that started, resumed or woke the task for this step: the step
    /// that ran when its job was handed to the run (through the steps left out of the timeline,
    /// to one that is in it); `nil` when none did.
    var resumedBy: Int? = nil
    /// Whether a check failed, or an issue was reported, in this task's work of the step.
    var failed = false
    /// Where the task was suspended when the step ended; `nil` when it finished or where it waits
    /// is not known.
    var site: SuspendedTaskStacks.SiteText? = nil
    /// How the line ends when there is no ``site``: `finished`, or why where the task waits is
    /// not known; `nil` when nothing is to be said.
    var ending: String? = nil
    /// ``taskName`` as each line of ``Timeline/description`` shows it: the function and file:line
    /// of the creation site, without the closures and generic parameters around it.
    var shortName: String = ""

    enum Executor: Equatable {
      case pool, mainActor, actor

      var suffix: String {
        switch self {
        case .pool: ""
        case .mainActor: " on the main actor"
        case .actor: " on an actor"
        }
      }
    }

    /// `  3. "reload 2"  resumed, finished`.
    public var description: String {
      var text = "\(step)."
      if time > .zero { text += " [" + Timeline.format(time) + "]" }
      return text + " " + taskName + "  " + whatWithFailure
    }

    /// What the task did in the step, and where it was left suspended: `resumed, waits for
    /// Gate("save") to open in save() at Model.swift:40`.
    var what: String {
      var actions = actions
      if let site, let last = actions.last {
        if actions.count > 1 && !site.entersFunction
          && (last.hasPrefix("waits for ") || last.hasPrefix("sleeps until "))
        {
          actions[actions.count - 1] = last + " in " + site.place
        } else if last != "finished" {
          actions.append(site.phrase)
        }
      } else if let ending, actions.last != "finished", actions.last.map(Self.waits) != true {
        actions.append(ending)
      }
      return actions.joined(separator: ", ")
    }

    /// Whether `action` says what the task waits for (a Lockstep primitive, a sleep).
    private static func waits(_ action: String) -> Bool {
      action.hasPrefix("waits for ") || action.hasPrefix("sleeps until ")
    }

    /// ``what``, and `✗ a check failed here` where one did.
    var whatWithFailure: String { what + (failed ? "  ✗ a check failed here" : "") }
  }

  /// Every step, in the order the scheduler ran them.
  public let entries: [Entry]
  /// What the run's jobs waited for other runs in progress (an actor both used), one line each.
  /// Not compared: how long a run waits is real time.
  let waitsForOtherRuns: [String]

  /// Two timelines are equal when their steps are.
  public static func == (lhs: Timeline, rhs: Timeline) -> Bool { lhs.entries == rhs.entries }

  init(_ trace: SchedulerTrace) {
    var eventsByStep: [Int: [SchedulerTrace.Event]] = [:]
    for event in trace.events { eventsByStep[event.step, default: []].append(event) }
    let sites = SuspendedTaskStacks.texts(
      for: Set(trace.steps.map(\.suspendedAt) + trace.tasksRanInActorJobs.map { $0.ran.site }))
    let ranByStep = trace.tasksRanByStep
    TaskOriginSymbols.prepare(trace.taskOrigins.values)
    let readsSites = SuspendedTaskStacks.unavailability == nil
    var knownNames: [Int: (full: String, short: String)] = [:]
    // A name two tasks share is told apart by their numbers.
    var nameCounts: [String: Int] = [:]
    for name in trace.taskNames.values { nameCounts[name, default: 0] += 1 }
    func names(of task: Int) -> (full: String, short: String) {
      if let known = knownNames[task] { return known }
      let named: (full: String, short: String)
      let origin = trace.taskOrigins[task]?.description
      if let name = trace.taskNames[task] {
        let short = nameCounts[name, default: 0] > 1 ? "\"\(name)\" (task \(task))" : "\"\(name)\""
        named = (short, short)
      } else if task == 1 {
        named = ("test body", "test body")
      } else if let origin {
        named = ("task \(task) (created in \(origin))", "task \(task)")
      } else {
        named = ("task \(task)", "task \(task)")
      }
      knownNames[task] = named
      return named
    }
    // The tasks whose jobs each step handed to the run.
    var handedOn: [Int: [Int]] = [:]
    for step in trace.steps {
      guard let task = step.task, let by = step.enqueuedBy, trace.steps[by].task == nil else { continue }
      if handedOn[by]?.contains(task) != true { handedOn[by, default: []].append(task) }
    }
    var seen: Set<Int> = []
    var entries: [Entry] = []
    // Whether each step is in a task's lane, and what started, resumed or woke its job.
    var shown = [Bool](repeating: false, count: trace.steps.count)
    func resumer(of index: Int) -> Int? {
      var resumer = trace.steps[index].enqueuedBy
      while let step = resumer, step < index, !shown[step] { resumer = trace.steps[step].enqueuedBy }
      return resumer.flatMap { $0 < index ? $0 + 1 : nil }
    }
    for (index, step) in trace.steps.enumerated() {
      // The tasks of the step, in order: the job's own task, then any task whose work an actor's
      // job ran (known from its events).
      let events = eventsByStep[index] ?? []
      var tasks: [Int] = step.task.map { [$0] } ?? []
      // The tasks an actor's job ran, seen by where they were left or by their executor switches.
      let ranTasks = ranByStep[index] ?? []
      for ran in ranTasks where !tasks.contains(ran.task) { tasks.append(ran.task) }
      // A failure during a job that is not a task's (no task to show it on) marks the step's
      // first task instead.
      for event in events where !tasks.contains(event.task) {
        if event.task == 0 && event.kind == .failed { continue }
        tasks.append(event.task)
      }
      shown[index] = !tasks.isEmpty
      guard !tasks.isEmpty else {
        // A job of no task: still a step, told by what it is and which tasks it handed on.
        let handed = (handedOn[index] ?? []).map { task in
          trace.taskNames[task] != nil || task == 1 ? names(of: task).short : "task \(task)"
        }
        let (name, action) = Self.jobOfNoTask(step.kindOfJob, handingOn: handed)
        entries.append(
          Entry(
            step: index + 1, task: 0, taskName: name, time: step.time, actions: [action],
            arrival: "", executor: step.isMainActor ? .mainActor : .pool,
            failed: events.contains { $0.kind == .failed }, shortName: name))
        continue
      }
      let resumedBy = resumer(of: index)
      for (position, task) in tasks.enumerated() {
        let arrival =
          seen.insert(task).inserted
          ? "started" : step.wokeFromSleep && task == step.task ? "woke from its sleep" : "resumed"
        let executor: Entry.Executor =
          task != step.task ? .actor : step.isMainActor ? .mainActor : .pool
        var actions = [arrival + executor.suffix]
        var failed = false
        for event in events
        where event.task == task || (event.task == 0 && event.kind == .failed && position == 0) {
          switch event.kind {
          case .waits(let what): actions.append("waits for \(what.text)")
          case .sleeps(let until): actions.append("sleeps until " + Timeline.format(until))
          case .note(let text): actions.append(text)
          case .cancelled: actions.append("is cancelled here (injected by explore)")
          case .finished: actions.append("finished")
          case .failed: failed = true
          }
        }
        // One actor job ran the work of several tasks: the step number repeats, and says why.
        if position > 0 { actions.append("in the same actor job as the line above") }
        let site = task == step.task ? step.suspendedAt : ranTasks.first { $0.task == task }?.site
        let (full, short) = names(of: task)
        entries.append(
          Entry(
            step: index + 1, task: task, taskName: full, time: step.time, actions: actions,
            arrival: arrival, executor: executor, resumedBy: resumedBy, failed: failed,
            site: site.flatMap { sites[$0] },
            ending: site.flatMap(Self.ending(at:))
              ?? (site == nil && readsSites ? "its place in the actor's job was not read" : nil),
            shortName: short))
      }
    }
    self.entries = entries
    waitsForOtherRuns = trace.waitsForOtherRuns.map { "step \($0.step + 1): \($0.wait.text)" }
  }

  /// How a line ends where no text tells where its task waits: finished, or why it is not known;
  /// `nil` where the task was not read (``Timeline/description`` says once why not, when it
  /// cannot be here).
  private static func ending(at site: SuspensionSite) -> String? {
    switch site.status {
    case .notRead: nil
    case .finished: "finished"
    case .running: "goes on on another thread (a blocking wait)"
    case .unreadable: "suspended; its memory could not be read as a task's"
    case .suspended: "suspended where no code has a name (no debug information)"
    }
  }

  /// How the timeline names a step that ran no task's job, and what it says the step did.
  private static func jobOfNoTask(_ kind: KindOfJob, handingOn tasks: [String]) -> (String, String) {
    let handed = tasks.joined(separator: ", ")
    switch kind {
    case .actor:
      return (
        "(actor job)",
        "runs an actor's work" + (tasks.isEmpty ? "" : ", resumes \(handed)")
          + " (no task of the run was seen in it)"
      )
    case .yield:
      return ("(Task.yield)", tasks.isEmpty ? "ends a Task.yield()" : "resumes \(handed) after Task.yield()")
    case .task, .other:
      return ("(runtime job)", tasks.isEmpty ? "runs no task's work" : "resumes \(handed)")
    }
  }

  /// A creation site as each line shows it: `cancelOnGracefulShutdown(_:) at File.swift:73` for
  /// `closure #1 in cancelOnGracefulShutdown<A>(_:) at File.swift:73`, its function cut to
  /// ``shortFunctionLimit`` characters.
  static func shortened(_ origin: String) -> String {
    let short = CodeFrame.shortened(origin)
    guard let at = short.range(of: " at ", options: .backwards) else { return short }
    let function = short[..<at.lowerBound]
    guard function.count > shortFunctionLimit else { return short }
    return function.prefix(shortFunctionLimit - 1) + "…" + short[at.lowerBound...]
  }

  static let shortFunctionLimit = 40

  /// Adds a line to the timeline of the deterministic run this code runs in, on the step of the
  /// task that calls it; does nothing outside a deterministic run.
  ///
  /// Use it in fakes and models to say what a task wrote or decided, so that a failing schedule
  /// reads like the race it is:
  ///
  /// ```swift
  /// func publish(_ book: Book, generation: Int) {
  ///   Timeline.note("publishes \(book.title) (generation \(generation))")
  ///   self.book = book
  /// }
  /// ```
  public static func note(_ message: @autoclosure () -> String) {
    CurrentRun.note(message())
  }

  /// A virtual time as people write it: `80 ms`, `2.08 s`.
  static func format(_ duration: Duration) -> String { duration.lockstepText }
}
