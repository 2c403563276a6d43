/// The jobs of a run stopped mid-way in a blocking wait — a `DispatchSemaphore`'s or a
/// `DispatchGroup`'s — each parked on its own thread while the run goes on draining on another
/// (the shell: `ParkedJobs.swift`). Pure: it decides which parked job resumes, and when.
///
/// A wait is woken by the run when a job of the run signals its semaphore or its deadline passes in
/// virtual time; its thread then comes back from the real wait, and the job resumes before any
/// ready job, so the order is the same in every run of a seed. A signal from outside work brings
/// the thread back without the run knowing beforehand: the job resumes at the next step.
struct ParkedWaits {
  /// What a parked job waits on.
  enum Kind: Sendable, Equatable {
    case semaphore, group
    /// A blocking sleep (`Thread.sleep`, `usleep`): its timeout is all that ends it.
    case sleep
    /// `DispatchQueue.sync` for a queue with blocks of the run on it: the call's return ends it.
    case sync
    /// A lock of the code under test (``LockTable``): the run resumes the job when the lock is
    /// free and the job is picked.
    case lock
    /// A run of the thread's run loop (XCTest's synchronous waits, `RunLoop.run(until:)`): its
    /// time, in virtual time, or `CFRunLoopStop` ends it.
    case runLoop

    /// The call, as a report names it.
    var call: String {
      switch self {
      case .semaphore: "DispatchSemaphore.wait()"
      case .group: "DispatchGroup.wait()"
      case .sleep: "a blocking sleep (Thread.sleep, usleep)"
      case .sync: "DispatchQueue.sync"
      case .lock: "a lock (pthread_mutex_lock: NSLock.lock(), NSRecursiveLock.lock())"
      case .runLoop: "a run loop (RunLoop.run, XCTest's wait(for:timeout:), waitForExpectations)"
      }
    }
  }

  /// Where a parked wait is.
  enum Phase: Equatable {
    /// Its thread blocks in the real wait.
    case waiting
    /// The run signalled its semaphore or its deadline passed: its thread is on its way back.
    case woken
    /// Its thread is back, ready to resume the job when the run hands it its turn.
    case returned
    /// A lock wait whose lock is free: the job may resume when the run picks it.
    case runnable
  }

  struct Wait: Equatable {
    let id: UInt64
    let kind: Kind
    /// The semaphore or group, by address.
    let object: UInt
    /// The task whose job parked (0: a job of no task, an actor's).
    let task: Int
    /// The task a report says waits: the job's own, or the task whose work an actor's job ran.
    let waitingTask: Int
    /// The step during which it parked.
    let step: Int
    /// Whether the run created its semaphore or group: only then is the wait durably blocked —
    /// nothing outside the run is expected to end it — and virtual time may move past it.
    let isDurable: Bool
    /// Whether its thread holds the main actor: no main-actor job runs until it resumes.
    let holdsMainActor: Bool
    /// The thread of a lock wait, which takes the lock when it resumes.
    var thread: UInt = 0
    var phase = Phase.waiting
    /// Whether its deadline passed in virtual time before a signal came: it returns timed out.
    var timedOut = false
    /// The virtual-time timer of its deadline, if it has one.
    var timer: UInt64?
  }

  /// Oldest first.
  private(set) var waits: [Wait] = []
  private var lastID: UInt64 = 0
  /// The semaphores and groups the run's jobs and outside work created, by address.
  private var created: Set<UInt> = []

  var isEmpty: Bool { waits.isEmpty }

  /// Whether a job waits on a semaphore or group from outside the run: a thread the run does not
  /// see may end the wait, so virtual time stands still and no deadlock is declared, as for outside
  /// work.
  var holdsTime: Bool { waits.contains { !$0.isDurable && $0.phase == .waiting && $0.kind != .lock } }

  /// Whether a parked thread holds the main actor: the run's main-actor jobs wait until it
  /// resumes, as on a main thread blocked in the same wait.
  var holdsMainActor: Bool { waits.contains { $0.holdsMainActor } }

  /// The run created `object`, a semaphore or a group; at most ``createdLimit`` are remembered.
  mutating func noteCreated(_ object: UInt) {
    if created.count < Self.createdLimit { created.insert(object) }
  }

  static var createdLimit: Int { 4096 }

  /// Whether the run's jobs or outside work created `object`, a semaphore, group or queue.
  func isCreatedByRun(_ object: UInt) -> Bool { created.contains(object) }

  /// Whether the run woke a wait whose thread is not back yet: the run waits for it first.
  var hasWokenWait: Bool { waits.contains { $0.phase == .woken } }

  /// A job of task `task` parks in a wait of `kind` on `object` during step `step`, its thread
  /// holding the main actor or not; its id.
  mutating func park(
    _ kind: Kind, on object: UInt, task: Int, waitingTask: Int? = nil, step: Int,
    holdsMainActor: Bool = false
  ) -> UInt64 {
    lastID += 1
    waits.append(
      Wait(
        id: lastID, kind: kind, object: object, task: task, waitingTask: waitingTask ?? task, step: step,
        isDurable: created.contains(object), holdsMainActor: holdsMainActor))
    return lastID
  }

  /// A job of task `task` on `thread` stops at a lock point on `lock` during step `step`: `runnable`
  /// when the lock is free (the run picked another job to run first), waiting when another job
  /// holds it. Its id.
  mutating func parkAtLock(
    _ lock: UInt, task: Int, waitingTask: Int, step: Int, thread: UInt, runnable: Bool,
    holdsMainActor: Bool = false
  ) -> UInt64 {
    lastID += 1
    var wait = Wait(
      id: lastID, kind: .lock, object: lock, task: task, waitingTask: waitingTask, step: step,
      isDurable: true, holdsMainActor: holdsMainActor)
    wait.thread = thread
    wait.phase = runnable ? .runnable : .waiting
    waits.append(wait)
    return lastID
  }

  /// The lock waits that may resume now, oldest first.
  var runnableLockWaits: [Wait] { waits.filter { $0.phase == .runnable } }

  /// Whether a lock wait may resume now.
  var hasRunnableLockWait: Bool { waits.contains { $0.phase == .runnable } }

  /// `lock` is free: the waits for it may resume.
  mutating func lockFreed(_ lock: UInt) {
    for index in waits.indices where waits[index].kind == .lock && waits[index].object == lock {
      waits[index].phase = .runnable
    }
  }

  /// A job took `lock`: the waits for it wait again. Returns the tasks that wait now.
  @discardableResult
  mutating func lockTaken(_ lock: UInt) -> [Int] {
    var blocked: [Int] = []
    for index in waits.indices where waits[index].kind == .lock && waits[index].object == lock {
      if waits[index].phase == .runnable { blocked.append(waits[index].waitingTask) }
      waits[index].phase = .waiting
    }
    return blocked
  }

  /// The lock waits that wait for a lock held by another job, oldest first.
  var blockedLockWaits: [Wait] { waits.filter { $0.kind == .lock && $0.phase == .waiting } }

  mutating func setTimer(_ timer: UInt64, of id: UInt64) {
    guard let index = index(of: id) else { return }
    waits[index].timer = timer
  }

  /// A job of the run signalled semaphore `object`: the oldest wait on it still waiting is woken,
  /// as libdispatch wakes one waiter. Returns whether one was.
  mutating func signal(_ object: UInt) -> Bool {
    guard
      let index = waits.firstIndex(where: { $0.object == object && $0.phase == .waiting && $0.kind != .lock })
    else {
      return false
    }
    waits[index].phase = .woken
    return true
  }

  /// Run loop `runLoop` was stopped: its wait still waiting is woken; its id.
  mutating func wakeRunLoopWait(_ runLoop: UInt) -> UInt64? {
    guard
      let index = waits.firstIndex(where: {
        $0.kind == .runLoop && $0.object == runLoop && $0.phase == .waiting
      })
    else { return nil }
    waits[index].phase = .woken
    return waits[index].id
  }

  /// The run's last block on `queue` returned: the jobs parked in `sync` for it are on their way
  /// back.
  mutating func wakeSyncWaits(on queue: UInt) {
    for index in waits.indices
    where waits[index].kind == .sync && waits[index].object == queue && waits[index].phase == .waiting {
      waits[index].phase = .woken
    }
  }

  /// The deadline of wait `id` passed in virtual time. Returns whether it was still waiting: the
  /// shell then wakes its thread, which returns timed out.
  mutating func timeOut(_ id: UInt64) -> Bool {
    guard let index = index(of: id), waits[index].phase == .waiting else { return false }
    waits[index].phase = .woken
    waits[index].timedOut = true
    waits[index].timer = nil
    return true
  }

  /// The thread of wait `id` came back from its real wait. When the run had woken another wait on
  /// the same semaphore and the kernel woke this thread instead, this one takes the other's turn.
  /// Returns whether it timed out, and the timer to remove, if any.
  mutating func returned(_ id: UInt64) -> (timedOut: Bool, timer: UInt64?) {
    guard let index = index(of: id) else { return (false, nil) }
    if waits[index].phase == .waiting,
      let other = waits.firstIndex(where: {
        $0.object == waits[index].object && $0.phase == .woken && !$0.timedOut
      })
    {
      waits[other].phase = .waiting
    }
    waits[index].phase = .returned
    let timer = waits[index].timedOut ? nil : waits[index].timer
    waits[index].timer = nil
    return (waits[index].timedOut, timer)
  }

  /// Takes the oldest wait whose thread is back: its job resumes now.
  mutating func takeReturned() -> Wait? {
    guard let index = waits.firstIndex(where: { $0.phase == .returned }) else { return nil }
    return waits.remove(at: index)
  }

  /// Removes wait `id`, whose job did not park after all (its semaphore was signalled as it
  /// parked).
  mutating func remove(_ id: UInt64) -> Wait? {
    guard let index = index(of: id) else { return nil }
    return waits.remove(at: index)
  }

  /// Removes every wait (the run is over); returns their ids.
  mutating func removeAll() -> [UInt64] {
    defer { waits.removeAll() }
    return waits.map(\.id)
  }

  private func index(of id: UInt64) -> Int? { waits.firstIndex { $0.id == id } }
}
