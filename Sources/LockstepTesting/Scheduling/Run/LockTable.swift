/// The locks of the code under test that a run's jobs took (`NSLock`, `NSRecursiveLock`,
/// `pthread_mutex_t`): which thread holds each, for which task, how many times (a recursive lock),
/// and where the code first took it. Pure; the run decides with it where a job stops at a lock
/// (`LockPoints.swift`).
struct LockTable {
  struct Holding: Equatable {
    /// The thread of the job that holds it.
    let thread: UInt
    /// The task a report says holds it (0: a job of no task).
    let task: Int
    /// How many times its holder took it (more than once only for a recursive lock).
    var count: Int
  }

  struct Lock: Equatable {
    var holding: Holding?
    /// A return address in the code that first took it, for reports.
    let firstTakenAt: UInt
  }

  /// By address.
  private(set) var locks: [UInt: Lock] = [:]

  /// Who holds `lock`, if a job does.
  func holder(of lock: UInt) -> Holding? { locks[lock]?.holding }

  /// The job on `thread`, of task `task`, took `lock` from `caller`.
  mutating func take(_ lock: UInt, thread: UInt, task: Int, caller: UInt) {
    if var known = locks[lock] {
      if let holding = known.holding, holding.thread == thread {
        known.holding?.count += 1
      } else {
        known.holding = Holding(thread: thread, task: task, count: 1)
      }
      locks[lock] = known
    } else {
      locks[lock] = Lock(holding: Holding(thread: thread, task: task, count: 1), firstTakenAt: caller)
    }
  }

  /// The job on `thread` let `lock` go. Returns whether it is free now: a lock taken outside the
  /// run, or by another thread, is not the run's to free.
  mutating func release(_ lock: UInt, thread: UInt) -> Bool {
    guard var known = locks[lock], let holding = known.holding, holding.thread == thread else {
      return false
    }
    if holding.count > 1 {
      known.holding?.count -= 1
      locks[lock] = known
      return false
    }
    known.holding = nil
    locks[lock] = known
    return true
  }
}
