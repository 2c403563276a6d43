import Dispatch
import Lockstep
import LockstepTesting
import Testing
import XCTest

/// The `DispatchQueue` conformance, on real queues. No test sleeps: each waits for the work it
/// scheduled, with a generous bound.
@Suite(.timeLimit(.minutes(1)))
struct DispatchWorkSchedulerTests {
  @Test func scheduleRunsTheWorkOnTheQueue() async throws {
    let queue = DispatchQueue(label: "lockstep.test.serial")
    let scheduler: any WorkScheduler = queue
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let onQueue = try await withCallback("work ran") { done in
      scheduler.schedule { done(DispatchQueue.getSpecific(key: key) == 7) }
    }
    #expect(onQueue)
  }

  @Test func delayedWorkRunsAfterItsDelayInDeadlineOrder() async throws {
    let queue = DispatchQueue(label: "lockstep.test.delayed")
    let start = queue.now
    let order = try await withCallback("both ran") { (done: @escaping @Sendable ([String]) -> Void) in
      let log = EventRecorder<String>("order")
      queue.schedule(after: .milliseconds(20)) {
        log.record("second")
        done(log.values)
      }
      queue.schedule(after: .milliseconds(5)) { log.record("first") }
    }
    #expect(order == ["first", "second"])
    #expect(start.duration(to: queue.now) >= .milliseconds(20))
  }

  @Test func cancelledWorkNeverRuns() async throws {
    let queue = DispatchQueue(label: "lockstep.test.cancel")
    let ran = EventCounter("cancelled work ran")
    let cancelled = queue.schedule(after: .milliseconds(1)) { ran.record() }
    cancelled.cancel()
    #expect(cancelled.isCancelled)
    // A later item on the same serial queue: once it ran, the cancelled one had its turn.
    _ = try await withCallback("a later item ran") { done in
      queue.schedule(at: queue.now.advanced(by: .milliseconds(5))) { done(()) }
    }
    ran.expectCount(0)
  }

  @Test func aPastDeadlineRunsAtOnce() async throws {
    let queue = DispatchQueue(label: "lockstep.test.past")
    let ran = try await withCallback("past deadline") { done in
      queue.schedule(at: SchedulerTime(offset: .zero)) { done(true) }
    }
    #expect(ran)
  }

  @Test func timeIsUptime() {
    let before = DispatchTime.now().uptimeNanoseconds
    let now = DispatchQueue.main.now.offset
    #expect(now >= .nanoseconds(before))
  }
}

final class DispatchWorkSchedulerXCTests: XCTestCase {
  func testMainQueueWorkRunsOnTheMainThread() {
    let done = expectation(description: "main-queue work ran")
    let scheduler: any WorkScheduler = DispatchQueue.main
    DispatchQueue.global().async {
      scheduler.schedule(after: .milliseconds(1)) {
        MainActor.assumeIsolated {  // traps if not on the main thread
          done.fulfill()
        }
      }
    }
    wait(for: [done], timeout: 30)
  }

  func testDispatchGroupSeesScheduledWork() {
    let queue = DispatchQueue(label: "lockstep.test.group", attributes: .concurrent)
    let group = DispatchGroup()
    let count = EventCounter("work items")
    for _ in 0..<10 {
      group.enter()
      queue.schedule {
        count.record()
        group.leave()
      }
    }
    XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
    count.expectCount(10)
  }
}
