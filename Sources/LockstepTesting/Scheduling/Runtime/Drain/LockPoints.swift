import Foundation
import LockstepInterposition

/// A lock the code under test takes in a run's job — `NSLock`, `NSRecursiveLock`, `NSCondition`,
/// `pthread_mutex_lock` — is a scheduling point (Linux): `LockCalls.c` tells the run before the C
/// library sees the call, and the run decides (``RunState/lockPoint(_:thread:caller:recursive:tries:mayChoose:holdsMainActor:actingTask:)``).
/// When another job is to run first, or another job holds the lock, the job parks on its thread as
/// a blocking wait does (``ParkedJobs``), one thread running at a time; the run resumes it when
/// the lock is free and the job is picked. Jobs that wait for each other's locks are a deadlock
/// the run reports, with the locks and both stacks.
extension DeterministicRun {
  /// A lock call `event` of the running job's code on `mutex`, from `caller`, on `thread`. Whether
  /// the call goes on to the C library.
  func lockCall(_ mutex: UInt, event: Int32, flags: Int32, thread: UInt, caller: UInt) -> Bool {
    guard isInJob else { return true }
    switch event {
    case Int32(lockstep_lock_event_unlock):
      state.withLock { $0.lockReleased(mutex, thread: thread) }
      return true
    case Int32(lockstep_lock_event_unscheduled):
      state.withLock { $0.noteLockNotScheduled("pthread_rwlock_t") }
      return true
    case Int32(lockstep_lock_event_taken):
      let acting = taskRunningInJob()
      state.withLock { $0.lockTaken(mutex, thread: thread, caller: caller, actingTask: acting) }
      return true
    default:
      return stop(
        at: mutex, tries: event == Int32(lockstep_lock_event_try), flags: flags, thread: thread,
        caller: caller)
    }
  }

  /// The lock point: goes on, or parks until the run resumes the job. Whether the call goes on to
  /// the C library.
  private func stop(at mutex: UInt, tries: Bool, flags: Int32, thread: UInt, caller: UInt) -> Bool {
    // A job holding a lock of the runtime or Foundation is not stopped: another job may need it.
    var mayChoose = flags & Int32(lockstep_lock_holds_system_lock) == 0
    if !mayChoose {
      state.withLock {
        $0.noteLockNotScheduled("locks taken while the runtime or Foundation held one of theirs")
      }
    }
    let recursive = flags & Int32(lockstep_lock_recursive) != 0
    let acting = taskRunningInJob()
    let holdsMainActor = MainActorAccess.isHeldHere
    while true {
      let decision = state.withLock {
        $0.lockPoint(
          mutex, thread: thread, caller: caller, recursive: recursive, tries: tries, mayChoose: mayChoose,
          holdsMainActor: holdsMainActor, actingTask: acting)
      }
      guard case .park(let id) = decision else { return true }
      guard parkAtLock(id) else {
        // The run is over: a lock another of its parked threads holds is not taken, or this
        // thread would stay blocked for good; the job runs on until its task's next await.
        return state.withLock { $0.locks.holder(of: mutex).map { $0.thread == thread } ?? true }
      }
      // Resumed: the lock is free, and the choice was made.
      mayChoose = false
    }
  }

  /// A wait of the running job on `object` that another job might have come before — a
  /// semaphore's, a group's, a queue's `sync` — named `call`: where an exploration picks, another
  /// job may run first, the job parked meanwhile.
  func choicePoint(at object: UnsafeMutableRawPointer, call: String) {
    guard isInJob else { return }
    let acting = taskRunningInJob()
    let holdsMainActor = MainActorAccess.isHeldHere
    let decision = state.withLock {
      $0.choicePoint(
        at: UInt(bitPattern: object), call: call, thread: Self.currentThread, holdsMainActor: holdsMainActor,
        actingTask: acting)
    }
    if case .park(let id) = decision { _ = parkAtLock(id) }
  }

  /// The calling thread, as the lock stand-ins name it.
  static var currentThread: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

  /// Parks the running job's thread as wait `id` until the run resumes it (`true`) or is over.
  private func parkAtLock(_ id: UInt64) -> Bool {
    let thread = ParkedThread(waitOn: nil, frames: ParkedThread.stackHere())
    sidelines.withLock { $0.parkedThreads[id] = thread }
    let fields = handTurnOn()
    let message = ParkedJobs.outsideRun { thread.slot.wait() }
    drainerFields = fields
    switch message {
    case .resume(let resumer):
      drainerFields.resumer = resumer
      return true
    case .runOver:
      return false
    case .drainOn, .retire:
      preconditionFailure("a parked thread is handed only its turn or the run's end")
    }
  }
}

/// Installs the lock points.
enum LockPoints {
  /// Takes the lock calls of the stand-ins; called once, with the runtime hooks.
  static func install() {
    guard MainQueueHandOff.isInEffect else { return }
    // Where Foundation's witnesses of `NSLocking` (called by its generic `withLock`) call the C
    // library from: the code under test is their caller.
    let locks: [any NSLocking] = [NSLock(), NSRecursiveLock(), NSCondition()]
    // Once before: the runtime's own locks of a first call are not the witnesses'.
    for lock in locks { lockAndUnlock(lock) }
    for lock in locks {
      lockstep_locks_probe(true)
      lockAndUnlock(lock)
      lockstep_locks_probe(false)
    }
    lockstep_locks_set_observer { run, mutex, event, flags, thread, caller in
      guard let run, let mutex else { return 0 }
      let owner = Unmanaged<DeterministicRun>.fromOpaque(run).takeUnretainedValue()
      let goesOn = owner.lockCall(
        UInt(bitPattern: mutex), event: event, flags: flags, thread: UInt(thread), caller: UInt(caller))
      return goesOn ? 0 : 1
    }
  }

  /// Takes and lets go of `lock` through the protocol's witnesses.
  @inline(never)
  private static func lockAndUnlock(_ lock: any NSLocking) {
    lock.lock()
    lock.unlock()
  }

  /// The report line of the lock wait `wait`: which lock, where the code first took it, and who
  /// holds it.
  static func line(for wait: ParkedWaits.Wait, locks: LockTable, describe: (Int) -> String) -> String? {
    guard wait.kind == .lock, let lock = locks.locks[wait.object] else { return nil }
    let place = CodeSymbols.frames(at: [lock.firstTakenAt], as: .returnAddress)?.first?.first
    let taken = place.map { " (first taken at \($0.text))" } ?? ""
    let address = "0x" + String(wait.object, radix: 16)
    guard let holding = lock.holding else {
      return "waits for its turn to take the lock at \(address)\(taken)"
    }
    let holder = holding.task == 0 ? "an actor's job" : describe(holding.task)
    return "waits for the lock at \(address)\(taken), held by \(holder)"
  }
}
