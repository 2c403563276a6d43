/// The pure state machine behind ``TestTaskFactory``: which tasks exist, which have finished, who
/// waits for idleness. It decides; the factory applies the decisions outside its lock.
///
/// Generic over the waiter and handle types so it can be tested without threads or tasks.
/// Unfinished tasks live in reusable slots (no hashing on the hot path): `register` returns the
/// slot and the task's number, `finish` frees the slot. The factory uses concrete types for both
/// (a continuation and a ``TaskHandle``), so every record is copied without runtime metadata.
struct TaskRegistry<IdleWaiter, Handle> {
  /// A registered task: its slot, and its number, which tells it from a later task that reuses
  /// the slot after this one finished.
  struct Ticket: Sendable {
    let slot: Int
    let number: Int
  }

  private(set) var createdCount = 0
  private(set) var unfinishedCount = 0
  private var slots: [FactoryTaskRecord?] = []
  /// The handle of the task in each slot, once its creator stored it.
  private var handles: [Handle?] = []
  private var freeSlots: [Int] = []
  /// Handles of finished tasks, not dropped yet: see ``takeRetired(ifAtLeast:)``.
  private var retired: [Handle] = []
  private var idleWaiters: [WaiterID: IdleWaiter] = [:]

  /// Records a new task and returns its ticket.
  mutating func register(name: String?, site: CallSite) -> Ticket {
    createdCount += 1
    unfinishedCount += 1
    let record = FactoryTaskRecord(number: createdCount, name: name, site: site)
    if let slot = freeSlots.popLast() {
      slots[slot] = record
      return Ticket(slot: slot, number: createdCount)
    }
    if slots.isEmpty {
      // Room for a typical test's tasks, instead of growing one doubling at a time.
      slots.reserveCapacity(8)
      handles.reserveCapacity(8)
      freeSlots.reserveCapacity(8)
      retired.reserveCapacity(8)
    }
    slots.append(record)
    handles.append(nil)
    return Ticket(slot: slots.count - 1, number: createdCount)
  }

  /// Stores the handle of a task that was just created. Returns `true` when the task must be
  /// cancelled right away (``requestCancelAll()`` ran between registration and now). A task that
  /// already finished — its slot is free, or holds a later task — needs no handle.
  mutating func attach(_ handle: Handle, to ticket: Ticket) -> Bool {
    guard slots[ticket.slot]?.number == ticket.number else { return false }
    handles[ticket.slot] = handle
    return slots[ticket.slot]!.cancelRequested
  }

  /// Marks a task finished. Returns the idle waiters to resume when it was the last one.
  mutating func finish(_ slot: Int) -> [IdleWaiter] {
    slots[slot] = nil
    if let handle = handles[slot].take() { retired.append(handle) }
    freeSlots.append(slot)
    unfinishedCount -= 1
    guard unfinishedCount == 0, !idleWaiters.isEmpty else { return [] }
    defer { idleWaiters = [:] }
    return idleWaiters.sorted { $0.key < $1.key }.map(\.value)
  }

  /// Takes the handles of finished tasks once there are at least `count`, for the caller to drop
  /// outside the lock.
  ///
  /// A finished task's handle is not dropped where it finishes: often it holds the last reference
  /// to the task, and freeing the task's memory on the thread that ran it, while the test's thread
  /// allocates the next tasks, makes the two threads contend for the allocator's lock (that cost
  /// more than everything else the factory does). The creator drops them in batches as it
  /// registers more tasks, and ``TestTaskFactory/waitUntilIdle(timeout:fileID:filePath:line:column:)``
  /// drops the rest.
  mutating func takeRetired(ifAtLeast count: Int) -> [Handle] {
    guard retired.count >= count, !retired.isEmpty else { return [] }
    defer { retired = [] }
    return retired
  }

  /// Marks every unfinished task as to be cancelled and returns the handles to cancel now.
  mutating func requestCancelAll() -> [Handle] {
    var handles: [Handle] = []
    for slot in slots.indices where slots[slot] != nil {
      slots[slot]!.cancelRequested = true
      if let handle = self.handles[slot] { handles.append(handle) }
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

/// What the registry knows of an unfinished task. Not generic, so that the registry copies it
/// inline, without runtime metadata.
struct FactoryTaskRecord {
  /// 1, 2, … in creation order: how reports name the task.
  let number: Int
  let name: String?
  let site: CallSite
  var cancelRequested = false
}
