import Foundation
import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing

/// Two tasks reserve the last seat at once.
private func twoReservations(_ variant: Variant) async {
  let seats = LockedSeats(variant: variant, free: 1)
  let first = Task { seats.reserve() }
  let second = Task { seats.reserve() }
  let reserved = await [first.value, second.value].count { $0 }
  #expect(reserved == 1, "\(reserved) reservations of the last seat")
  #expect(seats.freeSeats == 0)
}

/// Two transfers in opposite directions at once.
private func twoTransfers(_ variant: Variant) async {
  let bank = LockedTransfers(variant: variant, balances: [100, 100])
  let there = Task { bank.transfer(30, from: 0, to: 1) }
  let back = Task { bank.transfer(20, from: 1, to: 0) }
  await there.value
  await back.value
  #expect(bank.balances == [90, 110])
}

/// Seats whose free count a semaphore of one (`.semaphore`) or a serial queue's `sync` guards,
/// checked in one section and taken in the next: the same race as ``LockedSeats``' broken one.
private final class LegacySeats: @unchecked Sendable {
  enum Guard { case semaphore, queue }
  private let kind: Guard
  private let semaphore = DispatchSemaphore(value: 1)
  private let queue = DispatchQueue(label: "seats")
  private var free = 1

  init(_ kind: Guard) { self.kind = kind }

  private func guarded<T>(_ body: () -> T) -> T {
    switch kind {
    case .semaphore:
      semaphore.wait()
      defer { semaphore.signal() }
      return body()
    case .queue:
      return queue.sync(execute: body)
    }
  }

  func reserve() -> Bool {
    guard guarded({ free > 0 }) else { return false }
    guarded { free -= 1 }
    return true
  }
}

/// A value a read-write lock guards: seen by Lockstep, no scheduling point.
private final class ReadWriteBox: @unchecked Sendable {
  private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
  private var stored = 0

  init() {
    lock.initialize(to: pthread_rwlock_t())
    pthread_rwlock_init(lock, nil)
  }

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deallocate()
  }

  func increment() {
    pthread_rwlock_wrlock(lock)
    stored += 1
    pthread_rwlock_unlock(lock)
  }
}

/// Whether locks are scheduling points here: Linux only (``FindingRaces`` says what Apple
/// platforms get).
private let locksAreScheduled: Bool = {
  #if os(Linux)
    true
  #else
    false
  #endif
}()

@Suite(
  .timeLimit(.minutes(SuiteTimeLimit.minutes)),
  .enabled(if: locksAreScheduled, "locks are scheduling points on Linux only"))
struct LockRaceTests {
  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func aCheckThenActAcrossTwoLockSectionsIsFound(seed: UInt64) async {
    let (result, _) = await collectingIssues {
      await explore(.pct(schedules: 500, depth: 2, seed: seed)) { await twoReservations(.broken) }
    }
    #expect(result.failure != nil, "\(result)")
    print("seat seed \(seed): \(result.failure.map { "schedule \($0.schedule)" } ?? "none")")
  }

  /// A lock in a task off the main actor is a choice point also after a main-actor job of the
  /// body: the drain takes the main actor for main-actor jobs only.
  @Test func aLockOffTheMainActorIsAChoiceAfterAMainActorJobToo() async {
    let alone = await explore(.exhaustive()) { await twoReservations(.correct) }
    let afterMainActor = await explore(.exhaustive()) {
      await Task { @MainActor in }.value
      await twoReservations(.correct)
    }
    #expect(alone.isComplete && afterMainActor.isComplete)
    #expect(alone.schedulesRun > 1)
    #expect(afterMainActor.schedulesRun == alone.schedulesRun, "\(alone)\n\(afterMainActor)")
  }

  @Test func oneLockSectionIsNeverReported() async {
    let result = await explore(.pct(schedules: 2000, depth: 2, seed: 1)) { await twoReservations(.correct) }
    #expect(result.failure == nil, "\(result)")
    print("\(result)")
  }

  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func locksTakenInOppositeOrdersAreADeadlock(seed: UInt64) async {
    let (result, _) = await collectingIssues {
      await explore(.pct(schedules: 500, depth: 2, seed: seed)) { await twoTransfers(.broken) }
    }
    #expect(result.failure != nil, "\(result)")
    print("abba seed \(seed): \(result.failure.map { "schedule \($0.schedule)\n\($0)" } ?? "none")")
  }

  @Test func oneLockOrderIsNeverReported() async {
    let result = await explore(.pct(schedules: 2000, depth: 2, seed: 1)) { await twoTransfers(.correct) }
    #expect(result.failure == nil, "\(result)")
    print("\(result)")
  }

  @Test(arguments: [LegacySeats.Guard.semaphore, .queue])
  fileprivate func aCheckThenActAcrossTwoSemaphoreOrQueueSectionsIsFound(guarded: LegacySeats.Guard) async {
    let (result, _) = await collectingIssues {
      await explore(.pct(schedules: 500, depth: 2, seed: 1)) {
        let seats = LegacySeats(guarded)
        let first = Task { seats.reserve() }
        let second = Task { seats.reserve() }
        let reserved = await [first.value, second.value].count { $0 }
        #expect(reserved == 1, "\(reserved) reservations of the last seat")
      }
    }
    #expect(result.failure != nil, "\(result)")
  }

  @Test func theDeadlockReportNamesEachLockItsHolderAndBothStacks() async throws {
    let (result, _) = await collectingIssues {
      await explore(.pct(schedules: 500, depth: 2, seed: 1), maxSteps: 20) { await twoTransfers(.broken) }
    }
    let failure = try #require(result.failure)
    let report = "\(failure)"
    #expect(report.contains("Deadlock in the deterministic run"), "\(report)")
    // Each task waits for a lock the other holds, each named where it was first taken.
    #expect(report.components(separatedBy: "waits for the lock at 0x").count == 3, "\(report)")
    #expect(report.contains("first taken at LockedTransfers.transfer(_:from:to:) at LockedTransfers.swift:"))
    #expect(report.contains("held by task 2") && report.contains("held by task 3"), "\(report)")
    // Both stacks: where each blocks, and the closure that called it.
    #expect(report.contains("blocks in a lock (pthread_mutex_lock"), "\(report)")
    #expect(report.contains("called from closure #1 in twoTransfers(_:)"), "\(report)")
    #expect(report.contains("called from closure #2 in twoTransfers(_:)"), "\(report)")
    // No frame the compiler made to adapt a call, nor Lockstep's own machinery under the body.
    #expect(!report.contains("thunk for"), "\(report)")
    #expect(!report.contains("RunLifecycle.swift") && !report.contains("LentBody.swift"), "\(report)")
  }

  @Test func aLockHeldAcrossABlockingWaitIsWaitedForNotBlockedOn() async throws {
    let order = try await withDeterministicScheduling(timeout: .seconds(20)) {
      let shared = LockHeldAcrossAWait()
      // The first task holds the lock while parked in a semaphore's wait; the second wants the
      // lock; the third signals the semaphore.
      let holder = Task { shared.holdWhileWaiting() }
      let waiter = Task { shared.take() }
      let signaller = Task { shared.release() }
      await holder.value
      await waiter.value
      await signaller.value
      return shared.log.entries
    }
    #expect(order == ["holder", "waiter"])
  }

  @Test func readWriteLocksAreSaidNotToBeScheduled() async {
    let result = await explore(.exhaustive()) {
      let box = ReadWriteBox()
      let first = Task { box.increment() }
      let second = Task { box.increment() }
      await first.value
      await second.value
    }
    #expect(result.locksNotScheduled == ["pthread_rwlock_t"])
    #expect(result.isComplete)
    #expect(!result.description.contains("all of them;"), "\(result)")
    #expect(result.description.contains("pthread_rwlock_t — which are no scheduling points"), "\(result)")
  }
}

/// Entries appended under a lock.
private final class LockedLog: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [String] = []

  func append(_ entry: String) { lock.withLock { stored.append(entry) } }
  var entries: [String] { lock.withLock { stored } }
}

/// A lock one task holds across a semaphore's wait that another task ends.
private final class LockHeldAcrossAWait: @unchecked Sendable {
  private let lock = NSLock()
  private let released = DispatchSemaphore(value: 0)
  let log = LockedLog()

  func holdWhileWaiting() {
    lock.lock()
    released.wait()
    log.append("holder")
    lock.unlock()
  }

  func take() {
    lock.lock()
    log.append("waiter")
    lock.unlock()
  }

  func release() { _ = released.signal() }
}
