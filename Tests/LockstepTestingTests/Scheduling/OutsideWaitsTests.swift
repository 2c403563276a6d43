import Dispatch
import Foundation
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Keeps the calling thread busy for `milliseconds` of real time: the code under test's work, not
/// a wait of the test (a wait Lockstep sees would let virtual time move).
func workInRealTime(milliseconds: Int) {
  let end = VirtualNow.readingRealClocks { ContinuousClock.now } + .milliseconds(milliseconds)
  while VirtualNow.readingRealClocks({ ContinuousClock.now }) < end {}
}

/// Sets `ready` under `condition`'s lock and signals (or broadcasts) it, as a producer does.
private func announce(_ ready: Locked<Bool>, on condition: NSCondition, broadcast: Bool) {
  condition.lock()
  ready.withLock { $0 = true }
  broadcast ? condition.broadcast() : condition.signal()
  condition.unlock()
}

/// What a thread or a block of a run does to virtual time: it holds it while it runs, and lets it
/// move while it waits where Lockstep sees the wait — a semaphore, a group, a blocking sleep, which
/// lasts its time in virtual time (Linux, where the stand-ins are in effect).
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: MainQueueHandOff.isInEffect))
struct OutsideWaitsTests {
  /// A thread that works before it blocks: the body's sleep ends only once the thread waits.
  @Test func aThreadHoldsVirtualTimeUntilItWaits() async throws {
    let reachedItsWait = try await withDeterministicScheduling(timeout: .seconds(20)) {
      let reached = Locked(false)
      let release = DispatchSemaphore(value: 0)
      let thread = Task {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
          Thread.detachNewThread {
            workInRealTime(milliseconds: 10)
            reached.withLock { $0 = true }
            release.wait()
            done.resume()
          }
        }
      }
      try await Task.sleep(for: .milliseconds(500))
      let seen = reached.value
      release.signal()
      await thread.value
      return seen
    }
    #expect(reachedItsWait, "virtual time moved while the thread still worked")
  }

  /// A completion handler that waits for a task which sleeps first: the sleep ends in virtual
  /// time while the block waits.
  @Test func aBlockWaitingOnASemaphoreLetsVirtualTimeMove() async throws {
    let outcome = try await runDeterministically(timeout: .seconds(10)) {
      let ready = DispatchSemaphore(value: 0)
      Task {
        try? await Task.sleep(for: .seconds(3600))
        ready.signal()
      }
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
          ready.wait()
          done.resume()
        }
      }
    }
    #expect(outcome.trace.steps.last?.time == .seconds(3600))
  }

  /// A completion handler's wait with a timeout (a bridge that gives up): it holds virtual time
  /// still, its timeout lasting on the real clock, so a sleep of the run does not end meanwhile.
  @Test func aWaitWithATimeoutInABlockHoldsVirtualTime() async throws {
    let (timedOut, sleptMeanwhile) = try await withDeterministicScheduling(timeout: .seconds(20)) {
      let never = DispatchSemaphore(value: 0)
      let slept = Locked(false)
      let sleeper = Task {
        try? await Task.sleep(for: .seconds(5))
        slept.withLock { $0 = true }
      }
      let timedOut = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
        DispatchQueue.global().async {
          done.resume(returning: never.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        }
      }
      let sleptMeanwhile = slept.value
      sleeper.cancel()
      return (timedOut, sleptMeanwhile)
    }
    #expect(timedOut)
    #expect(!sleptMeanwhile, "virtual time moved while the block waited with a timeout")
  }

  /// A thread that waits on an `NSCondition` for a task which sleeps first: the sleep ends in
  /// virtual time while the thread waits.
  @Test(arguments: [false, true])
  func aThreadWaitingOnAConditionLetsVirtualTimeMove(broadcast: Bool) async throws {
    let outcome = try await runDeterministically(timeout: .seconds(10)) {
      let condition = NSCondition()
      let ready = Locked(false)
      Task {
        try? await Task.sleep(for: .seconds(3600))
        announce(ready, on: condition, broadcast: broadcast)
      }
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
          condition.lock()
          while !ready.value { condition.wait() }
          condition.unlock()
          done.resume()
        }
      }
    }
    #expect(outcome.trace.steps.last?.time == .seconds(3600))
  }

  /// `Thread.sleep` in a thread of the run: the thread reads the run's clocks, and its sleep lasts
  /// its time on them.
  @Test(arguments: [false, true])
  func aBlockingSleepLastsItsTimeInVirtualTime(inABlock: Bool) async throws {
    let slept = try await withDeterministicScheduling(timeout: .seconds(20)) {
      await withCheckedContinuation { (done: CheckedContinuation<Duration, Never>) in
        let work: @Sendable () -> Void = {
          let start = ContinuousClock.now
          Thread.sleep(forTimeInterval: 0.25)
          done.resume(returning: start.duration(to: .now))
        }
        if inABlock {
          DispatchQueue.global().async(execute: work)
        } else {
          Thread.detachNewThread(work)
        }
      }
    }
    #expect(slept == .milliseconds(250))
  }

  /// A thread that polls, sleeping between two looks, for what a task does after a sleep of its
  /// own: both sleeps pass in virtual time.
  @Test func aPollingThreadSeesATaskFinishAfterItsSleep() async throws {
    let looks = try await withDeterministicScheduling(timeout: .seconds(20)) {
      let finished = Locked(false)
      Task {
        try? await Task.sleep(for: .milliseconds(1050))
        finished.withLock { $0 = true }
      }
      return await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
        Thread.detachNewThread {
          var looks = 1
          while !finished.value {
            usleep(100_000)
            looks += 1
          }
          done.resume(returning: looks)
        }
      }
    }
    // The eleventh sleep of 100 ms ends after the task's; the twelfth look sees it.
    #expect(looks == 12)
  }
}
