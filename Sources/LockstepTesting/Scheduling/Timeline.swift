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
    /// The run-local number of the task; the body is task 1.
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
      line(nameWidth: taskName.count, showsTime: time > .zero, numbered: true)
    }

    func line(nameWidth: Int, showsTime: Bool, numbered: Bool) -> String {
      var text = numbered ? "\(step)." : ""
      if showsTime { text += " [" + Timeline.format(time) + "]" }
      let padding = String(repeating: " ", count: max(0, nameWidth - taskName.count))
      return text + " " + taskName + padding + "  " + actions.joined(separator: ", ")
    }
  }

  /// Every step, in the order the scheduler ran them.
  public let entries: [Entry]

  init(_ trace: SchedulerTrace) {
    var eventsByStep: [Int: [SchedulerTrace.Event]] = [:]
    for event in trace.events { eventsByStep[event.step, default: []].append(event) }
    var seen: Set<Int> = []
    var entries: [Entry] = []
    func name(_ task: Int) -> String {
      if let name = trace.taskNames[task] { return "\"\(name)\"" }
      if task == 1 { return "test body" }
      return trace.taskOrigins[task].map { "task \(task) (created in \($0))" } ?? "task \(task)"
    }
    // Whether each step is in the timeline, and what started, resumed or woke its job.
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
      // A failure during a job that is not a task's (no task to show it on) marks the step's
      // first task instead.
      for event in events where !tasks.contains(event.task) {
        if event.task == 0 && event.kind == .failed { continue }
        tasks.append(event.task)
      }
      shown[index] = !tasks.isEmpty
      let resumedBy = tasks.isEmpty ? nil : resumer(of: index)
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
        entries.append(
          Entry(
            step: index + 1, task: task, taskName: name(task), time: step.time, actions: actions,
            arrival: arrival, executor: executor, resumedBy: resumedBy, failed: failed))
      }
    }
    self.entries = entries
  }

  /// One line per stretch of steps of one task, task names aligned; times are shown once virtual
  /// time has moved.
  ///
  /// Consecutive steps of the same task at the same virtual time share a line (`4–6.`), without
  /// the bare `resumed` of each hop between actors:
  public var description: String {
    let stretches = self.stretches
    let nameWidth = entries.map(\.taskName.count).max() ?? 0
    let stepWidth = stretches.map(\.steps.count).max() ?? 0
    let showsTime = entries.contains { $0.time > .zero }
    return stretches.map { stretch in
      String(repeating: " ", count: stepWidth - stretch.steps.count) + stretch.steps
        + stretch.entry.line(nameWidth: nameWidth, showsTime: showsTime, numbered: false)
    }.joined(separator: "\n")
  }

  /// Consecutive steps of one task at one virtual time, told as one line of ``description``.
  struct Stretch {
    /// The entries of the stretch, in order; at least one.
    let entries: [Entry]
    /// The stretch as one entry: the first entry, with the actions of all of them.
    let entry: Entry
    /// `4.` or `4–6.`.
    var steps: String {
      entries.count == 1 ? "\(entry.step)." : "\(entry.step)–\(entries[entries.count - 1].step)."
    }
  }

  /// The entries, folded into stretches of one task at one virtual time.
  var stretches: [Stretch] {
    var groups: [[Entry]] = []
    for entry in entries {
      if let last = groups.last?.last, last.task == entry.task, last.time == entry.time {
        groups[groups.count - 1].append(entry)
      } else {
        groups.append([entry])
      }
    }
    return groups.map { group in
      let first = group[0]
      var actions = first.actions
      // A stretch that hops between executors names none of them.
      if group.contains(where: { $0.executor != first.executor }) { actions[0] = first.arrival }
      for entry in group.dropFirst() {
        actions += entry.arrival == "resumed" ? Array(entry.actions.dropFirst()) : entry.actions
      }
      return Stretch(
        entries: group,
        entry: Entry(
          step: first.step, task: first.task, taskName: first.taskName, time: first.time,
          actions: actions, arrival: first.arrival, executor: first.executor,
          resumedBy: first.resumedBy, failed: group.contains(where: \.failed)))
    }
  }

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
