/// What a run knows about its tasks: the run-local number of each (1, 2, … in the order their
/// first job reached the run; the body is 1), its name, and what it was doing, for timelines and
/// deadlock reports.
///
/// With the same choices, the same workload gets the same numbers, which is what makes traces and
/// replays comparable.
struct TaskRecords {
  private var numbers = TaskNumbers()
  /// Task `n` is at index `n - 1`.
  private var records: [TaskRecord] = []

  /// The runtime id of the body's task: the first task that reached the run.
  private(set) var bodyTaskID: UInt64?

  var isEmpty: Bool { records.isEmpty }

  /// The runtime ids of every task that reached the run.
  var taskIDs: [UInt64] { numbers.allIDs }

  /// The number of the task with runtime id `id`, if it reached the run.
  func number(of id: UInt64) -> Int? { numbers[id] }

  /// Counts the task with runtime id `id` as task `number`: the job of a sleep belongs to the task
  /// that sleeps, not to a task of its own. Does nothing if `id` is numbered already.
  mutating func alias(_ id: UInt64, to number: Int) {
    if numbers[id] == nil { numbers.insert(id, number) }
  }

  /// The number of the task with runtime id `id`, numbering it if it is new.
  mutating func number(registering id: UInt64) -> Int {
    if let known = numbers[id] { return known }
    if records.isEmpty {
      bodyTaskID = id
      // Room for a typical run's tasks without reallocating (a record is about 200 bytes: the
      // buffer stays under 1 KB, see `RunState.init`).
      records.reserveCapacity(4)
      numbers.reserveCapacity(8)
    }
    records.append(TaskRecord(number: records.count + 1, taskID: id))
    numbers.insert(id, records.count)
    return records.count
  }

  /// Task `task`'s record, read and changed in place (a record holds strings: copying it on every
  /// job is what a plain get/set would do).
  subscript(task: Int) -> TaskRecord {
    _read { yield records[task - 1] }
    _modify { yield &records[task - 1] }
  }

  /// Whether the runtime name of the task with runtime id `id` is still to be looked up: it
  /// reached the run and nobody has looked yet. A task's name never changes, so it is looked up
  /// once, not on every job of the task.
  func needsName(forTask id: UInt64) -> Bool {
    guard let number = numbers[id] else { return false }
    return needsName(number, id: id)
  }

  /// Whether the name of task `number` is to be looked up while its job with runtime id `id`
  /// runs. A job whose id is an alias (the runtime's wake-up task of a sleep) runs as another task
  /// than the one it counts for, and the name read then would not be the task's: that is left to
  /// the task's own jobs.
  func needsName(_ number: Int, id: UInt64) -> Bool {
    // Field by field: copying the whole record would retain and release its strings.
    records[number - 1].taskID == id && !records[number - 1].nameLookedUp
      && records[number - 1].name == nil
  }

  /// Records the name of the task with runtime id `id` (`nil`: it has none) unless it has a name;
  /// returns its number when it was named now. A name told for an alias (see
  /// ``needsName(_:id:)``) marks nothing looked up.
  mutating func name(_ name: String?, forTask id: UInt64) -> Int? {
    guard let number = numbers[id] else { return nil }
    if records[number - 1].taskID == id { records[number - 1].nameLookedUp = true }
    guard let name, records[number - 1].name == nil else { return nil }
    records[number - 1].name = name
    return number
  }

  /// The tasks, the body first, one each, for a deadlock report; at most 50 besides the body.
  /// A task with `waits` lines gets them below its own, indented.
  func descriptions(bodyFinished: Bool, waits: [Int: [String]] = [:]) -> [String] {
    var lines: [String] = []
    func describe(_ record: TaskRecord, isBody: Bool) -> String {
      let text = record.describe(isBody: isBody)
      guard let below = waits[record.number], !below.isEmpty else { return text }
      return text + below.map { "\n    " + $0 }.joined()
    }
    if let body = records.first {
      lines.append(describe(body, isBody: true))
    } else if !bodyFinished {
      lines.append("the body, which never ran")
    }
    let others = records.dropFirst()
    let limit = Self.reportedTaskLimit
    lines += others.prefix(limit).map { describe($0, isBody: false) }
    if others.count > limit { lines.append("… and \(others.count - limit) more") }
    return lines
  }

  /// Where the tasks a report describes were created, as far as known.
  var reportedOrigins: [TaskOrigin] {
    records.prefix(1 + Self.reportedTaskLimit).compactMap(\.origin)
  }

  /// The most tasks besides the body that a report describes.
  static var reportedTaskLimit: Int { 50 }

  /// The kept objects of the tasks a report describes that ran and are not known to have
  /// finished, by number.
  var suspendedObjects: [Int: UInt] {
    var objects: [Int: UInt] = [:]
    for record in records.prefix(1 + Self.reportedTaskLimit) where !record.finished && record.jobsRun > 0 {
      if let object = record.object { objects[record.number] = object }
    }
    return objects
  }

  /// The kept objects of every task, which no record holds any more.
  mutating func takeObjects() -> [UInt] {
    var objects: [UInt] = []
    for index in records.indices {
      if let object = records[index].object { objects.append(object) }
      records[index].object = nil
    }
    return objects
  }
}

/// What the scheduler knew about one task of a run.
struct TaskRecord: Sendable {
  let number: Int
  /// The runtime id it was numbered under (its other ids are aliases: see ``TaskRecords/alias(_:to:)``).
  let taskID: UInt64
  var name: String?
  /// Whether its name was looked up while one of its own jobs ran.
  var nameLookedUp = false
  var jobsRun = 0
  /// The trace index of the last job it ran.
  var lastStep = 0
  var lastOnMainActor = false
  /// What the task waits for at a Lockstep primitive or in a sleep, since its last job.
  var waitingOn: Waiting?
  /// Whether it is known to have finished (the body, and tasks of a `TestTaskFactory`).
  var finished = false
  /// Where it was created, when a task factory said so.
  var createdAt: CallSite?
  /// Where it was created, as the runtime's task creation saw it (``TaskCreationHook``).
  var origin: TaskOrigin?
  /// The real-clock deadline of its latest sleep, and whether that sleep has ended.
  var lastRealSleep: RealDeadline?
  var lastSleepEnded = false
  /// The address of the task, kept alive by the run while the run holds it (see
  /// ``SchedulableJob/retainTask()``), so that a report can read where the task waits.
  var object: UInt?

  func describe(isBody: Bool) -> String {
    var text = "task \(number)"
    if let name { text += " \"\(name)\"" }
    if isBody { text += " (the body)" }
    if let createdAt {
      text += " (created at \(createdAt))"
    } else if let origin {
      text += " (created in \(origin))"
    }
    if finished { return text + ": finished" }
    if jobsRun == 0 { return text + ": never ran" }
    if let waitingOn { text += ": suspended, waiting for \(waitingOn.text);" } else { text += ":" }
    return text + " last ran at step \(lastStep + 1)" + (lastOnMainActor ? " on the main actor" : "")
  }
}
