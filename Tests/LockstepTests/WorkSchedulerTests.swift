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

  @Test func delayedWorkRunsNoSoonerThanItsDelay() async throws {
    let queue = DispatchQueue(label: "lockstep.test.delayed")
    let before = queue.now
    let ranAt = try await withCallback("delayed work ran") { done in
      queue.schedule(after: .milliseconds(20)) { done(queue.now) }
    }
    #expect(ranAt >= before.advanced(by: .milliseconds(20)))

    let deadline = queue.now.advanced(by: .milliseconds(10))
    let ranAtDeadline = try await withCallback("work at a deadline ran") { done in
      queue.schedule(at: deadline) { done(queue.now) }
    }
    #expect(ranAtDeadline >= deadline)
  }

  @Test func aLaterDeadlineScheduledFirstWaitsForItsDeadline() async throws {
    let queue = DispatchQueue(label: "lockstep.test.deadlines")
    let log = EventRecorder<String>("order")
    let start = queue.now
    // An hour away: it cannot come due while this test runs (its time limit is a minute).
    let later = queue.schedule(at: start.advanced(by: .seconds(3_600))) { log.record("later") }
    let order = try await withCallback("the earlier deadline ran") { done in
      queue.schedule(at: start.advanced(by: .milliseconds(5))) {
        log.record("earlier")
        done(log.values)
      }
    }
    #expect(order == ["earlier"])
    later.cancel()  // so that nothing is left scheduled
  }

  @Test func cancelledWorkNeverRuns() async throws {
    let queue = DispatchQueue(label: "lockstep.test.cancel")
    let ran = EventCounter("cancelled work ran")
    // The queue is suspended while the work is scheduled and cancelled, so however late this
    // thread gets to `cancel()`, the work cannot have started.
    queue.suspend()
    let cancelled = queue.schedule(after: .milliseconds(1)) { ran.record() }
    let cancelledBefore = cancelled.isCancelled
    cancelled.cancel()
    queue.resume()
    // The handle reads the work item's state: not cancelled until `cancel()`, cancelled after.
    #expect(!cancelledBefore)
    #expect(cancelled.isCancelled)
    // A later item on the same serial queue: once it ran, the cancelled one had its turn.
    _ = try await withCallback("a later item ran") { done in
      queue.schedule(at: queue.now.advanced(by: .milliseconds(5))) { done(()) }
    }
    ran.expectCount(0)
  }

  @Test func aPastDeadlineRunsAsSoonAsPossibleLikeAsync() async throws {
    let queue = DispatchQueue(label: "lockstep.test.past")
    let log = EventRecorder<String>("order")
    // On a serial queue, work that runs "as soon as possible" runs before work submitted after it
    // with `async`; work given a delay, however short, would run after it.
    let order = try await withCallback("every item ran") { done in
      queue.schedule(at: SchedulerTime(offset: .zero)) { log.record("past deadline") }
      queue.schedule(after: .seconds(-1)) { log.record("negative delay") }
      queue.schedule {
        log.record("async")
        done(log.values)
      }
    }
    #expect(order == ["past deadline", "negative delay", "async"])
  }

  @Test func timeIsUptime() {
    let before = DispatchTime.now().uptimeNanoseconds
    let now = DispatchQueue.main.now.offset
    let after = DispatchTime.now().uptimeNanoseconds
    #expect(now >= .nanoseconds(before))
    #expect(now <= .nanoseconds(after))
  }
}

/// A scheduler that wraps another one, as the protocol's documentation suggests: it logs, and
/// hands back handles of its own made with `ScheduledWork(cancel:isCancelled:)`.
private final class LoggingScheduler: WorkScheduler {
  let inner: TestQueue
  let log = EventRecorder<String>("scheduler log")

  init(wrapping inner: TestQueue) { self.inner = inner }

  var now: SchedulerTime { inner.now }

  func submit(
    at deadline: SchedulerTime?, site: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> ScheduledWork {
    let handle = inner.submit(at: deadline, site: site, work)
    log.record("scheduled at line \(site.line)")
    let log = self.log
    return ScheduledWork(
      cancel: {
        log.record("cancelled")
        handle.cancel()
      },
      isCancelled: { handle.isCancelled })
  }
}

@Suite(.timeLimit(.minutes(1)))
struct CustomWorkSchedulerTests {
  @Test func aCustomHandleCancelsAndReportsThroughItsClosures() async {
    let queue = TestQueue()
    let scheduler = LoggingScheduler(wrapping: queue)
    let ran = EventRecorder<String>("ran")
    let line = #line + 1
    let kept = scheduler.schedule(after: .seconds(1)) { ran.record("kept") }
    let dropped = scheduler.schedule(after: .seconds(1)) { ran.record("dropped") }
    #expect(!dropped.isCancelled)
    dropped.cancel()
    #expect(dropped.isCancelled)
    #expect(!kept.isCancelled)
    #expect(queue.pendingCount == 1)
    await queue.advance(by: .seconds(1))
    #expect(ran.values == ["kept"])
    #expect(
      scheduler.log.values == ["scheduled at line \(line)", "scheduled at line \(line + 1)", "cancelled"])
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
