/// The pure state machine behind ``TestTaskFactory``: which tasks exist, which have finished, who
/// waits for idleness. It decides; the factory applies the decisions outside its lock.
///
/// Generic over the waiter token so it can be tested without threads or continuations.
struct TaskRegistry<IdleWaiter, Handle> {
  struct Record {
    let number: Int
    let name: String?
    let site: CallSite
    var handle: Handle?
    var cancelRequested = false
  }

  private(set) var createdCount = 0
  private(set) var unfinished: [Int: Record] = [:]
  private var idleWaiters: [WaiterID: IdleWaiter] = [:]

  var unfinishedCount: Int { unfinished.count }

  /// Records a new task and returns its number (1, 2, …).
  mutating func register(name: String?, site: CallSite) -> Int {
    createdCount += 1
    unfinished[createdCount] = Record(number: createdCount, name: name, site: site)
    return createdCount
  }

  /// Stores the handle of a task that was just created. Returns `true` when the task must be
  /// cancelled right away (``requestCancelAll()`` ran between registration and now).
  mutating func attach(_ handle: Handle, to number: Int) -> Bool {
    guard unfinished[number] != nil else { return false }
    unfinished[number]!.handle = handle
    return unfinished[number]!.cancelRequested
  }

  /// Marks a task finished. Returns the idle waiters to resume when it was the last one.
  mutating func finish(_ number: Int) -> [IdleWaiter] {
    unfinished[number] = nil
    guard unfinished.isEmpty, !idleWaiters.isEmpty else { return [] }
    defer { idleWaiters = [:] }
    return idleWaiters.sorted { $0.key < $1.key }.map(\.value)
  }

  /// Marks every unfinished task as to be cancelled and returns the handles to cancel now.
  mutating func requestCancelAll() -> [Handle] {
    var handles: [Handle] = []
    for number in unfinished.keys {
      unfinished[number]!.cancelRequested = true
      if let handle = unfinished[number]!.handle { handles.append(handle) }
    }
    return handles
  }

  /// A waiter for idleness arrives: it passes at once when nothing is running.
  mutating func arriveIdleWaiter(_ id: WaiterID, _ waiter: IdleWaiter) -> Bool {
    guard !unfinished.isEmpty else { return false }
    idleWaiters[id] = waiter
    return true
  }

  /// Removes an idle waiter that timed out or was cancelled, if it is still waiting.
  mutating func departIdleWaiter(_ id: WaiterID) -> IdleWaiter? {
    idleWaiters.removeValue(forKey: id)
  }

  /// The unfinished tasks, oldest first, described for a report.
  var unfinishedDescriptions: [String] {
    unfinished.values.sorted { $0.number < $1.number }.map { record in
      let name = record.name.map { " \"\($0)\"" } ?? " (unnamed)"
      return "task #\(record.number)\(name), created at \(record.site)"
    }
  }
}
