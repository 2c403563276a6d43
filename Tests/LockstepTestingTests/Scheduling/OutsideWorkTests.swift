import Dispatch
import Foundation
import LockstepTestSupport
import Synchronization
import Testing

@testable import LockstepTesting

/// Slow outside work, as a completion handler on a Dispatch queue is: real I/O takes real time
/// (in a call Lockstep does not see, which holds virtual time still). The code under test's
/// latency, not a wait of the test — each test's result is the same however long it takes.
private func slowOutsideWork() { workInRealTime(milliseconds: 20) }

/// A main-actor model a completion handler updates.
@MainActor private final class TitleModel {
  var title = ""
}

/// Blocks a run's jobs queue on Dispatch queues other than the main queue are outside work of the
/// run: without `gracePeriod`, the run waits for them instead of reporting a deadlock, and keeps
/// virtual time still until they return (Linux, where the Dispatch stand-ins are in effect).
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: MainQueueHandOff.isInEffect))
struct OutsideWorkTests {
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aCallbackOnAGlobalQueueIsAwaitedNotReportedAsADeadlock() async throws {
    let value = try await withDeterministicScheduling {
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          slowOutsideWork()
          continuation.resume(returning: 42)
        }
      }
    }
    #expect(value == 42)
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aTaskACompletionHandlerStartsIsTheRunsAndSleepsInItsTime() async throws {
    let value = try await withDeterministicScheduling {
      await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
        DispatchQueue.global().async {
          Task {
            // An hour of the run's virtual time: in real time, the test's limit would end it.
            try? await Task.sleep(for: .seconds(3600))
            done.resume(returning: 42)
          }
        }
      }
    }
    #expect(value == 42)
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aMainActorTaskACompletionHandlerStartsUpdatesTheModelInTheRun() async throws {
    let title = try await withDeterministicScheduling { @MainActor in
      let model = TitleModel()
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
          slowOutsideWork()
          Task { @MainActor in
            model.title = "loaded"
            done.resume()
          }
        }
      }
      return model.title
    }
    #expect(title == "loaded")
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func tasksACompletionHandlerStartsRunInTheSeedsOrder() async throws {
    @Sendable func order(seed: UInt64) async throws -> [Int] {
      try await withDeterministicScheduling(seed: seed) {
        let order = Locked<[Int]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
          DispatchQueue.global().async {
            // One task, the handler's; the tasks it starts start in a job of the run.
            Task {
              let tasks = (0..<4).map { index in
                Task {
                  await Task.yield()
                  order.withLock { $0.append(index) }
                }
              }
              for task in tasks { await task.value }
              done.resume()
            }
          }
        }
        return order.withLock { $0 }
      }
    }
    var orders: Set<[Int]> = []
    for seed: UInt64 in 1...12 {
      let first = try await order(seed: seed)
      #expect(try await order(seed: seed) == first, "seed \(seed)")
      orders.insert(first)
    }
    // The seed picks among the tasks' jobs: they are choices of the run's schedule.
    #expect(orders.count > 1)
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func asyncAfterFromABlockWaitsItsDelayInVirtualTime() async throws {
    let (early, late) = try await withDeterministicScheduling {
      let fired = Locked(0)
      let queue = DispatchQueue(label: "com.example.after")
      queue.async {
        // An hour: in real time, the test's limit would end it.
        queue.asyncAfter(deadline: .now() + .seconds(3600)) { fired.withLock { $0 += 1 } }
      }
      try await Task.sleep(for: .seconds(3599))
      let early = fired.withLock { $0 }
      try await Task.sleep(for: .seconds(2))
      return (early, fired.withLock { $0 })
    }
    #expect(early == 0 && late == 1)
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aDebounceRescheduledOnItsQueueFiresOnceInVirtualTime() async throws {
    let searched = try await withDeterministicScheduling {
      let searches = Locked<[String]>([])
      let queue = DispatchQueue(label: "com.example.debounce")
      let pending = Locked<DispatchWorkItem?>(nil)
      // Each keystroke's handler, on the queue, cancels the pending search and schedules another.
      for text in ["s", "sw", "swi", "swift"] {
        queue.async {
          let item = DispatchWorkItem { searches.withLock { $0.append(text) } }
          pending.withLock { previous in
            previous?.cancel()
            previous = item
          }
          queue.asyncAfter(deadline: .now() + .milliseconds(300), execute: item)
        }
      }
      try await Task.sleep(for: .seconds(1))
      return searches.withLock { $0 }
    }
    #expect(searched == ["swift"])
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func virtualTimeStandsStillWhileABlockOnAQueueRuns() async throws {
    let finished = try await withDeterministicScheduling {
      let done = Atomic(false)
      DispatchQueue.global().async {
        slowOutsideWork()
        done.store(true, ordering: .sequentiallyConsistent)
      }
      try await Task.sleep(for: .seconds(1))
      return done.load(ordering: .sequentiallyConsistent)
    }
    #expect(finished, "the sleep ended while the block was still running")
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func blocksThatOutsideWorkQueuesAreOutsideWorkToo() async throws {
    let value = try await withDeterministicScheduling {
      await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          DispatchQueue(label: "inner").async {
            slowOutsideWork()
            continuation.resume(returning: "inner")
          }
        }
      }
    }
    #expect(value == "inner")
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aGroupNotifyBlockIsAwaited() async throws {
    let total = try await withDeterministicScheduling {
      // A reference: the two blocks run at once, and a captured `Mutex` is accessed as a variable.
      let sum = Locked(0)
      let queue = DispatchQueue(label: "workers", attributes: .concurrent)
      let group = DispatchGroup()
      for value in [1, 2] {
        queue.async(group: group) {
          slowOutsideWork()
          sum.withLock { $0 += value }
        }
      }
      return await withCheckedContinuation { continuation in
        group.notify(queue: .global()) { continuation.resume(returning: sum.withLock { $0 }) }
      }
    }
    #expect(total == 3)
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func asyncAfterOnASerialQueueFiresInVirtualTime() async throws {
    let fired = try await withDeterministicScheduling {
      let fired = Mutex<[String]>([])
      let queue = DispatchQueue(label: "debounce")
      queue.asyncAfter(deadline: .now() + 5) { fired.withLock { $0.append("at 5 s") } }
      try await Task.sleep(for: .seconds(4))
      let early = fired.withLock { $0 }
      try await Task.sleep(for: .seconds(2))
      return early + fired.withLock { $0 }
    }
    #expect(fired == ["at 5 s"], "nothing by 4 s, the block by 6 s of virtual time")
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: [true, false])
  func aDebounceThatCancelsItsWorkItemFiresOnce(cancels: Bool) async throws {
    let fired = try await withDeterministicScheduling {
      let fired = Locked(0)  // a reference: blocks run on other threads
      let queue = DispatchQueue(label: "debounce")
      var pending: DispatchWorkItem?
      for _ in 0..<3 {
        if cancels { pending?.cancel() }
        let item = DispatchWorkItem { fired.withLock { $0 += 1 } }
        pending = item
        queue.asyncAfter(deadline: .now() + 5, execute: item)
        try await Task.sleep(for: .seconds(1))
      }
      try await Task.sleep(for: .seconds(10))
      return fired.withLock { $0 }
    }
    // The broken twin, which forgets to cancel, fires for every call.
    #expect(fired == (cancels ? 1 : 3))
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func outsideWorkThatNeverReturnsFailsTheRunAtItsTimeoutNamingIt() async throws {
    let release = DispatchSemaphore(value: 0)
    defer { release.signal() }
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await withDeterministicScheduling(timeout: .milliseconds(300)) {
        DispatchQueue(label: "com.example.stuck").async { release.wait() }
        try await Task.sleep(for: .seconds(1))
      }
    }
    let pending = error?.pending ?? []
    #expect(
      pending.contains {
        $0.contains("outside work still running: a block queued with DispatchQueue.async")
          && $0.contains("on \"com.example.stuck\" by task 1 at step 1")
      }, "\(pending)")
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func explorationOfBlocksJoinedByAGroupFindsNoDeadlock() async {
    let result = await explore(.random(schedules: 5, seed: 1)) {
      let queue = DispatchQueue(label: "pair", attributes: .concurrent)
      let group = DispatchGroup()
      let count = Locked(0)  // a reference: the two blocks run at once
      for _ in 0..<2 {
        queue.async(group: group) {
          slowOutsideWork()
          count.withLock { $0 += 1 }
        }
      }
      // Tasks beside the blocks, so that the schedules differ.
      let beside = [Task { await Task.yield() }, Task { await Task.yield() }]
      let total = await withCheckedContinuation { continuation in
        group.notify(queue: queue) { continuation.resume(returning: count.withLock { $0 }) }
      }
      for task in beside { await task.value }
      #expect(total == 2)
    }
    #expect(result.failure == nil && result.schedulesRun == 5, "\(result)")
  }
  /// As swift-service-lifecycle's `UnixSignalsSequence` does: await a signal source's
  /// registration, then a signal the test sends its own process, beside a sleep that must not win.
  /// (SIGURG: its default action is to be ignored, so a stray one harms no process.)
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aSignalSourceIsAwaitedFromRegistrationToDelivery() async throws {
    let first = try await withDeterministicScheduling {
      let queue = DispatchQueue(label: "signals")
      let source = DispatchSource.makeSignalSource(signal: SIGURG, queue: queue)
      let (events, continuation) = AsyncStream<String>.makeStream()
      source.setEventHandler {
        slowOutsideWork()
        continuation.yield("signal")
      }
      await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
        source.setRegistrationHandler {
          slowOutsideWork()
          registered.resume()
        }
        source.resume()
      }
      let timeout = Task {
        try await Task.sleep(for: .seconds(5))
        continuation.yield("timeout")
      }
      kill(getpid(), SIGURG)
      var iterator = events.makeAsyncIterator()
      let first = await iterator.next()
      timeout.cancel()
      source.cancel()
      return first
    }
    #expect(first == "signal", "the sleep ended before the signal's handler ran")
  }
  /// A Dispatch timer source set from the run ticks in virtual time, each tick's handler run before
  /// time moves on, and stops when cancelled.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aTimerSourceTicksInVirtualTimeUntilCancelled() async throws {
    let ticks = try await withDeterministicScheduling(timeout: .seconds(10)) { () async throws -> [Int] in
      let count = Atomic(0)
      let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ticks"))
      timer.setEventHandler { count.add(1, ordering: .sequentiallyConsistent) }
      timer.schedule(deadline: .now() + 1, repeating: 1)
      timer.resume()
      try await Task.sleep(for: .seconds(10.5))
      let ticked = count.load(ordering: .sequentiallyConsistent)
      timer.cancel()
      try await Task.sleep(for: .seconds(5))
      return [ticked, count.load(ordering: .sequentiallyConsistent)]
    }
    #expect(ticks == [10, 10])
  }

  /// A legacy bridge waits on a semaphore with a timeout, in a job of the run: the deadline,
  /// computed on the run's virtual clocks, lasts its time on the real clock.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: [false, true])
  func aWaitWithATimeoutLastsItsTimeoutInRealTime(group: Bool) async throws {
    let result = try await withDeterministicScheduling {
      try await Task.sleep(for: .seconds(3600))  // virtual time moved on
      if group {
        let work = DispatchGroup()
        DispatchQueue.global().async(group: work) { slowOutsideWork() }
        return work.wait(timeout: .now() + 30) == .success
      }
      let answered = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        slowOutsideWork()
        answered.signal()
      }
      return answered.wait(timeout: .now() + 30) == .success
    }
    #expect(result, "the wait timed out before the other thread was done")
  }
}

/// What a block or a thread of a run reads of now: the run's virtual time, as its jobs do
/// (Linux, where reads of now are virtual).
@Suite(
  .timeLimit(.minutes(SuiteTimeLimit.minutes)),
  .enabled(if: MainQueueHandOff.isInEffect && VirtualNow.isAvailable))
struct OutsideWorkClockTests {
  /// The clocks a job of the run reads, and those its outside work read: the same instants,
  /// since virtual time stands still while the outside work runs.
  private struct Readings: Sendable, Equatable {
    let continuous: ContinuousClock.Instant
    let date: Date
    let uptime: UInt64

    static var now: Readings {
      Readings(continuous: .now, date: Date(), uptime: DispatchTime.now().uptimeNanoseconds)
    }
  }

  @Test func aCompletionHandlerReadsTheRunsVirtualTime() async throws {
    let (inJob, inBlock) = try await withDeterministicScheduling {
      try await Task.sleep(for: .seconds(3600))  // virtual time moved an hour ahead of real time
      let inJob = Readings.now
      let inBlock = await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: Readings.now) }
      }
      return (inJob, inBlock)
    }
    #expect(inBlock == inJob)
  }

  @Test func aThreadTheRunStartsReadsTheRunsVirtualTime() async throws {
    let (inJob, inThread) = try await withDeterministicScheduling {
      try await Task.sleep(for: .seconds(3600))
      let inJob = Readings.now
      let inThread = await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: Readings.now) }
      }
      return (inJob, inThread)
    }
    #expect(inThread == inJob)
  }

  /// A completion handler waits on a semaphore with a timeout computed on the run's clocks: the
  /// wait lasts its time on the real clock, neither expiring at once nor lasting an hour.
  @Test(arguments: [false, true])
  func aWaitWithATimeoutInABlockLastsItsTimeoutInRealTime(group: Bool) async throws {
    let answered = try await withDeterministicScheduling {
      try await Task.sleep(for: .seconds(3600))
      return await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          if group {
            let work = DispatchGroup()
            DispatchQueue.global().async(group: work) { slowOutsideWork() }
            continuation.resume(returning: work.wait(timeout: .now() + 30) == .success)
            return
          }
          let done = DispatchSemaphore(value: 0)
          DispatchQueue.global().async {
            slowOutsideWork()
            done.signal()
          }
          continuation.resume(returning: done.wait(timeout: .now() + 30) == .success)
        }
      }
    }
    #expect(answered, "the wait timed out before the other block was done")
  }

  /// A block of a run that ended queues an `asyncAfter` with a deadline read on the run's clocks:
  /// it fires after its delay in real time, not an hour later.
  @Test func anAsyncAfterABlockQueuesAfterItsRunFiresOnTime() async throws {
    let fired = EventCounter("the asyncAfter block")
    let release = DispatchSemaphore(value: 0)
    try await withDeterministicScheduling(gracePeriod: .zero) {
      try await Task.sleep(for: .seconds(3600))
      DispatchQueue.global().async {
        // A block of the run, still running once the run is over (the test releases it).
        release.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { fired.record() }
      }
    }
    release.signal()
    try await fired.waitForCount(1)
  }
}
