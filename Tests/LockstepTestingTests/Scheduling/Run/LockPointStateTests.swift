import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// What a run decides at a lock of the code under test (``RunState/lockPoint(_:thread:caller:recursive:tries:mayChoose:holdsMainActor:actingTask:)``):
/// who holds it, when a job waits, and what an exploration's picker is offered.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct LockPointStateTests {
  private static let lock: UInt = 0x1000
  private static let other: UInt = 0x2000

  /// A run ordered by `picker` (FIFO without one) whose task 1 runs while task 2 is ready.
  private func twoTasks(picker: ScriptedPicker? = nil) -> RunState<FakeJob> {
    var state = RunState<FakeJob>(order: picker.map { .picked($0) } ?? .fifo)
    _ = state.enqueue(FakeJob(10))
    _ = state.next()
    _ = state.enqueue(FakeJob(11))
    return state
  }

  private func ran(_ step: RunState<FakeJob>.Step) -> FakeJob? {
    if case .run(let job) = step { return job }
    return nil
  }

  private func resumed(_ step: RunState<FakeJob>.Step) -> ParkedWaits.Wait? {
    if case .resume(let wait) = step { return wait }
    return nil
  }

  @Test func aFreeLockIsTakenAtOnceWhenNoPickerChooses() {
    var state = twoTasks()
    let went1 = state.lockPoint(
      Self.lock, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: true)
    #expect(went1 == .go)
    #expect(state.locks.holder(of: Self.lock) == LockTable.Holding(thread: 1, task: 1, count: 1))
  }

  @Test func thePickerChoosesBetweenGoingOnAndTheReadyJobs() {
    var picker = ScriptedPicker()
    picker.choose = { _, _ in 1 }
    var state = twoTasks(picker: picker)
    let decision = state.lockPoint(
      Self.lock, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: true)
    guard case .park(let id) = decision else {
      Issue.record("the job went on: \(decision)")
      return
    }
    let offered = (state.picker as? ScriptedPicker)?.offered
    #expect(offered?.map(\.tasks) == [[1, 2]], "the job at the lock first, then the ready job")
    #expect(state.locks.holder(of: Self.lock) == nil, "a job that stops has not taken the lock")
    #expect(ran(state.next()) == FakeJob(11), "the job picked runs next, without asking again")
    #expect(resumed(state.next())?.id == id, "the stopped job is the only one left: it resumes")
    let went2 = state.lockPoint(
      Self.lock, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: false)
    #expect(went2 == .go)
    #expect(state.locks.holder(of: Self.lock)?.task == 1)
  }

  @Test func aJobWaitsForALockAnotherHoldsAndResumesOnceItIsFree() {
    var state = twoTasks()
    let went3 = state.lockPoint(
      Self.lock, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: true)
    #expect(went3 == .go)
    // Task 1 parks elsewhere holding the lock; task 2 runs and wants it.
    let parked = state.park(.semaphore, on: Self.other, timeout: nil, onTimeout: { _ in {} })
    #expect(parked != nil)
    #expect(ran(state.next()) == FakeJob(11))
    let decision = state.lockPoint(
      Self.lock, thread: 2, caller: 0xB, recursive: false, tries: false, mayChoose: true)
    guard case .park(let id) = decision else {
      Issue.record("task 2 took a held lock")
      return
    }
    #expect(state.parked.blockedLockWaits.map(\.id) == [id])
    state.lockReleased(Self.lock, thread: 1)
    #expect(state.parked.runnableLockWaits.map(\.id) == [id], "free again: it may resume")
  }

  @Test func jobsThatWaitForEachOthersLocksAreStuck() {
    var picker = ScriptedPicker()
    picker.choose = { tasks, _ in tasks.count - 1 }
    var state = twoTasks(picker: picker)
    // Task 1 takes A (no other candidate is picked: the picker takes the last, task 2)…
    let first = state.lockPoint(
      Self.lock, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: false)
    #expect(first == .go)
    // …stops at B, task 2 runs, takes B, wants A.
    guard
      case .park = state.lockPoint(
        Self.other, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: true)
    else {
      Issue.record("task 1 went on")
      return
    }
    #expect(ran(state.next()) == FakeJob(11))
    let went4 = state.lockPoint(
      Self.other, thread: 2, caller: 0xB, recursive: false, tries: false, mayChoose: false)
    #expect(went4 == .go)
    guard
      case .park = state.lockPoint(
        Self.lock, thread: 2, caller: 0xB, recursive: false, tries: false, mayChoose: false)
    else {
      Issue.record("task 2 took a held lock")
      return
    }
    // B is task 2's: task 1, stopped at it, waits again; nothing can run.
    #expect(state.parked.blockedLockWaits.count == 2)
    guard case .stuck = state.next() else {
      Issue.record("the run is not stuck")
      return
    }
  }

  @Test func aRecursiveLockIsTakenAgainByItsHolderAndFreedByItsLastRelease() {
    var state = twoTasks()
    for _ in 0..<2 {
      let went5 = state.lockPoint(
        Self.lock, thread: 1, caller: 0xA, recursive: true, tries: false, mayChoose: true)
      #expect(went5 == .go)
    }
    #expect(state.locks.holder(of: Self.lock)?.count == 2)
    state.lockReleased(Self.lock, thread: 1)
    #expect(state.locks.holder(of: Self.lock)?.count == 1)
    state.lockReleased(Self.lock, thread: 1)
    #expect(state.locks.holder(of: Self.lock) == nil)
  }

  @Test func aNonRecursiveLockTakenAgainByItsHolderIsAWaitThatNeverEnds() {
    var state = twoTasks()
    _ = state.lockPoint(Self.lock, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: true)
    guard
      case .park = state.lockPoint(
        Self.lock, thread: 1, caller: 0xA, recursive: false, tries: false, mayChoose: true)
    else {
      Issue.record("the holder took its lock twice")
      return
    }
    #expect(state.parked.blockedLockWaits.first?.task == 1)
  }

  @Test func aTryLockTakesTheLockOnlyOnceTheCLibraryGaveIt() {
    var state = twoTasks()
    let went6 = state.lockPoint(
      Self.lock, thread: 1, caller: 0xA, recursive: false, tries: true, mayChoose: true)
    #expect(went6 == .go)
    #expect(state.locks.holder(of: Self.lock) == nil)
    state.lockTaken(Self.lock, thread: 1, caller: 0xA)
    #expect(state.locks.holder(of: Self.lock)?.task == 1)
  }

  @Test func aReleaseOfALockTheRunDidNotSeeTakenChangesNothing() {
    var table = LockTable()
    let unseen = table.release(Self.lock, thread: 1)
    #expect(!unseen)
    table.take(Self.lock, thread: 1, task: 1, caller: 0xA)
    let byAnother = table.release(Self.lock, thread: 2)
    #expect(!byAnother, "another thread's release is not the holder's")
    let byHolder = table.release(Self.lock, thread: 1)
    #expect(byHolder)
    #expect(table.locks[Self.lock]?.firstTakenAt == 0xA)
  }
}
