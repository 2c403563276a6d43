/// The pure state machine behind ``TestTaskFactory``: which tasks exist, which have finished, who
/// waits for idleness. It decides; the factory applies the decisions outside its lock.
///
/// Generic over the waiter and handle types so it can be tested without threads or tasks.
/// Unfinished tasks live in reusable slots (no hashing on the hot path): `register` returns the
/// slot, `finish` frees it.
struct TaskRegistry<IdleWaiter, Handle> {
  struct Record {
    /// 1, 2, … in creation order: how reports name the task.
    let number: Int
    let name: String?
    let site: CallSite
    var handle: Handle?
    var cancelRequested = false
  }

  private(set) var createdCount = 0
  private(set) var unfinishedCount = 0
  private var slots: [Record?] = []
  private var freeSlots: [Int] = []
  private var idleWaiters: [WaiterID: IdleWaiter] = [:]

  /// Records a new task and returns its slot.
  mutating func register(name: String?, site: CallSite) -> Int {
    createdCount += 1
    unfinishedCount += 1
    let record = Record(number: createdCount, name: name, site: site)
    if let slot = freeSlots.popLast() {
      slots[slot] = record
      return slot
    }
    slots.append(record)
    return slots.count - 1
  }

  /// Stores the handle of a task that was just created. Returns `true` when the task must be
  /// cancelled right away (``requestCancelAll()`` ran between registration and now).
  mutating func attach(_ handle: Handle, to slot: Int) -> Bool {
    guard slots[slot] != nil else { return false }  // it already finished
    slots[slot]!.handle = handle
    return slots[slot]!.cancelRequested
  }

  /// Marks a task finished. Returns the idle waiters to resume when it was the last one.
  mutating func finish(_ slot: Int) -> [IdleWaiter] {
    slots[slot] = nil
    freeSlots.append(slot)
    unfinishedCount -= 1
    guard unfinishedCount == 0, !idleWaiters.isEmpty else { return [] }
    defer { idleWaiters = [:] }
    return idleWaiters.sorted { $0.key < $1.key }.map(\.value)
  }

  /// Marks every unfinished task as to be cancelled and returns the handles to cancel now.
  mutating func requestCancelAll() -> [Handle] {
    var handles: [Handle] = []
    for slot in slots.indices where slots[slot] != nil {
      slots[slot]!.cancelRequested = true
      if let handle = slots[slot]!.handle { handles.append(handle) }
    }
    return handles
  }

  /// A waiter for idleness arrives: it passes at once when nothing is running.
  mutating func arriveIdleWaiter(_ id: WaiterID, _ waiter: IdleWaiter) -> Bool {
    guard unfinishedCount > 0 else { return false }
    idleWaiters[id] = waiter
    return true
  }

  /// Removes an idle waiter that timed out or was cancelled, if it is still waiting.
  mutating func departIdleWaiter(_ id: WaiterID) -> IdleWaiter? {
    idleWaiters.removeValue(forKey: id)
  }

  /// The unfinished tasks, oldest first, described for a report.
  var unfinishedDescriptions: [String] {
    slots.compactMap { $0 }.sorted { $0.number < $1.number }.map { record in
      let name = record.name.map { " \"\($0)\"" } ?? " (unnamed)"
      return "task #\(record.number)\(name), created at \(record.site)"
    }
  }
}
