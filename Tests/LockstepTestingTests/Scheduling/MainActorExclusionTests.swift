import Dispatch
import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// Main-actor work of the whole process, watched: each piece says when it starts and ends, and
/// any two that overlap are counted, as are writes to one `@MainActor` counter that get lost.
@MainActor enum MainActorWork {
  static var counter = 0
  private nonisolated static let occupancy = Locked((inside: 0, overlaps: 0))

  /// One piece of main-actor work: a read-modify-write of ``counter`` with a window between the
  /// read and the write.
  static func step() {
    occupancy.withLock { state in
      state.inside += 1
      if state.inside > 1 { state.overlaps += 1 }
    }
    let read = counter
    var spin = 0
    for index in 0..<200 { spin &+= index }
    counter = read + 1 + (spin == -1 ? 1 : 0)
    occupancy.withLock { $0.inside -= 1 }
  }

  nonisolated static var overlaps: Int { occupancy.withLock { $0.overlaps } }
}

/// Whether this code runs on the main queue, recognised without trapping: what
/// `dispatchPrecondition(condition: .onQueue(.main))` checks.
func onTheMainQueue() -> Bool { DispatchQueue.getSpecific(key: mainQueueKey) == 1 }
private let mainQueueKey: DispatchSpecificKey<UInt8> = {
  let key = DispatchSpecificKey<UInt8>()
  DispatchQueue.main.setSpecific(key: key, value: 1)
  return key
}()

/// Plain main-actor work beside a run: ``MainActorExclusionTests/steps`` steps, one a turn.
func mainActorWorkBeside() -> Task<Void, Never> {
  Task { @MainActor in
    for _ in 0..<MainActorExclusionTests.steps {
      MainActorWork.step()
      await Task.yield()  // allowed: the workload, one main-actor job a turn
    }
  }
}

/// A run's main-actor jobs hold the process's main actor: they never overlap other main-actor
/// work, and they run where main-actor work runs without the run. The tests of this suite run in
/// parallel with each other (Swift Testing's default), each of them main-actor work beside the
/// others'.
@Suite(.timeLimit(.minutes(max(2, SuiteTimeLimit.minutes))))
struct MainActorExclusionTests {
  static let steps = 3_000

  /// A run's workload: ``steps`` hops onto the main actor, each a step of main-actor work, counting
  /// the steps that ran off the main queue.
  static func hopsOntoTheMainActor(countingOffQueue offQueue: Locked<Int>) async {
    for _ in 0..<steps {
      await MainActor.run {
        MainActorWork.step()
        if !onTheMainQueue() { offQueue.withLock { $0 += 1 } }
      }
      await Task.yield()  // allowed: the workload, one job a turn
    }
  }

  @Test(.deterministic()) @MainActor func aDeterministicMainActorTestHoldsTheMainActor() async {
    let before = MainActorWork.overlaps
    var offQueue = 0
    for _ in 0..<Self.steps {
      MainActorWork.step()
      if !onTheMainQueue() { offQueue += 1 }
      await Task.yield()  // allowed: the workload, one main-actor job a turn
    }
    #expect(offQueue == 0)
    #expect(MainActorWork.overlaps == before)
  }

  @MainActor @Test func plainMainActorWorkBesideADeterministicTest() async {
    let before = MainActorWork.overlaps
    for _ in 0..<Self.steps {
      MainActorWork.step()
      await Task.yield()  // allowed: the workload, one main-actor job a turn
    }
    #expect(MainActorWork.overlaps == before)
  }

  @Test func aNonisolatedCallersRunHoldsTheMainActorForItsMainActorJobs() async throws {
    let before = MainActorWork.overlaps
    let beside = mainActorWorkBeside()
    let offQueue = Locked(0)
    try await withDeterministicScheduling { await Self.hopsOntoTheMainActor(countingOffQueue: offQueue) }
    await beside.value
    #expect(offQueue.value == 0)
    #expect(MainActorWork.overlaps == before)
  }

  @Test func theBlockingFormRunsMainActorJobsOnTheMainQueue() async throws {
    let before = MainActorWork.overlaps
    let beside = mainActorWorkBeside()
    // On a thread of its own: the blocking form must not block a thread of the cooperative pool.
    let offQueue = try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Result {
            let offQueue = Locked(0)
            _ = try withDeterministicSchedulingBlocking {
              await Self.hopsOntoTheMainActor(countingOffQueue: offQueue)
            }
            return offQueue.value
          })
      }.start()
    }
    await beside.value
    #expect(offQueue == 0)
    #expect(MainActorWork.overlaps == before)
  }

  @MainActor @Test func aRunWithAGracePeriodHoldsTheMainActorForItsMainActorJobs() async throws {
    let before = MainActorWork.overlaps
    let beside = mainActorWorkBeside()
    let offQueue = Locked(0)
    try await withDeterministicScheduling(gracePeriod: .milliseconds(50)) {
      await Self.hopsOntoTheMainActor(countingOffQueue: offQueue)
    }
    await beside.value
    #expect(offQueue.value == 0)
    #expect(MainActorWork.overlaps == before)
  }

  @Test func anExplorationHoldsTheMainActorForItsMainActorJobs() async throws {
    let before = MainActorWork.overlaps
    let beside = mainActorWorkBeside()
    let offQueue = Locked(0)
    let result = await explore(.random(schedules: 200)) {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 {
          group.addTask {
            await MainActor.run {
              MainActorWork.step()
              if !onTheMainQueue() { offQueue.withLock { $0 += 1 } }
            }
          }
        }
      }
    }
    await beside.value
    #expect(result.failure == nil)
    #expect(offQueue.value == 0)
    #expect(MainActorWork.overlaps == before)
  }
}

/// Under XCTest the main actor is the main thread, on Linux as on Apple platforms: inside a run
/// it stays so, however long the run.
final class MainActorThreadXCTests: XCTestCase {
  @MainActor func testALongRunKeepsEveryMainActorJobOnTheMainThread() async throws {
    XCTAssertTrue(Thread.isMainThread, "the premise: XCTest's main actor is the main thread")
    let offMain = Locked(0)
    let jobs = Locked(0)
    try await withDeterministicScheduling {
      for _ in 0..<5_000 {
        await MainActor.run {
          jobs.withLock { $0 += 1 }
          if !Thread.isMainThread || !onTheMainQueue() { offMain.withLock { $0 += 1 } }
        }
        await Task.detached {}.value
      }
    }
    XCTAssertEqual(jobs.value, 5_000)
    XCTAssertEqual(offMain.value, 0)
  }

  func testTheBlockingFormOnTheMainThreadRunsMainActorJobsThere() throws {
    XCTAssertTrue(Thread.isMainThread, "the premise: XCTest runs a synchronous test on the main thread")
    let offMain = Locked(0)
    _ = try withDeterministicSchedulingBlocking {
      for _ in 0..<200 {
        await MainActor.run { if !Thread.isMainThread { offMain.withLock { $0 += 1 } } }
        await Task.detached {}.value
      }
    }
    XCTAssertEqual(offMain.value, 0)
  }

  /// With a grace period the drain thread waits for outside jobs, and the main thread, blocked in
  /// the call, runs the run's main-actor work meanwhile.
  func testTheBlockingFormWithAGracePeriodOnTheMainThreadRunsMainActorJobsThere() throws {
    let offMain = Locked(0)
    let outcome = try withDeterministicSchedulingBlocking(gracePeriod: .milliseconds(20)) {
      for _ in 0..<200 {
        await MainActor.run { if !Thread.isMainThread { offMain.withLock { $0 += 1 } } }
        await Task.detached {}.value
      }
      // A job from another thread, which the run waits for in real time.
      return await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
        Thread { continuation.resume(returning: 7) }.start()
      }
    }
    XCTAssertEqual(outcome.value, 7)
    XCTAssertEqual(offMain.value, 0)
  }

  func testANonisolatedRunKeepsMainActorJobsOnTheMainThread() async throws {
    let offMain = Locked(0)
    try await withDeterministicScheduling {
      for _ in 0..<2_000 {
        await MainActor.run { if !Thread.isMainThread { offMain.withLock { $0 += 1 } } }
        await Task.detached {}.value
      }
    }
    XCTAssertEqual(offMain.value, 0)
  }
}
