import Dispatch
import Foundation
import LockstepTestSupport
import Synchronization
import Testing

@testable import LockstepTesting

/// Legacy code that bridges a callback with a semaphore: the callback comes from a task.
private func bridgedAnswer(after delay: Duration?) -> Int {
  let answered = DispatchSemaphore(value: 0)
  let answer = Atomic(0)
  Task {
    if let delay { try? await Task.sleep(for: delay) }
    answer.store(42, ordering: .sequentiallyConsistent)
    answered.signal()
  }
  answered.wait()
  return answer.load(ordering: .sequentiallyConsistent)
}

private final class Counter: Sendable {
  let value = Atomic(0)
}

/// An actor whose method blocks in a wait nothing ends.
private actor Stuck {
  func waitForever() { DispatchSemaphore(value: 0).wait() }
}

/// Synchronous legacy code that pauses its thread.
private func legacyPause(seconds: Double) { Thread.sleep(forTimeInterval: seconds) }

/// What `run` throws, if anything.
private nonisolated(nonsending) func thrownError(_ run: () async throws -> Void) async -> (any Error)? {
  do {
    try await run()
    return nil
  } catch {
    return error
  }
}

/// The virtual time of the run's last step.
private func lastStepTime(_ trace: SchedulerTrace) -> Duration { trace.steps.last?.time ?? .zero }

/// A job that blocks its thread in `DispatchSemaphore.wait` or `DispatchGroup.wait` is parked there
/// while the run goes on on another thread (Linux, where the Dispatch stand-ins are in effect).
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: MainQueueHandOff.isInEffect))
struct ParkedJobsTests {
  /// On the run's only thread, the wait would keep the task that signals from ever running.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: [nil, 1, 2, 3] as [UInt64?])
  func aSemaphoreBridgeSignalledByATaskOfTheRunReturns(seed: UInt64?) async throws {
    let outcome = try await runDeterministically(seed: seed, timeout: .seconds(10)) {
      bridgedAnswer(after: nil)
    }
    #expect(outcome.value == 42)
  }

  /// A parked job is durably blocked, as Go's `synctest` says: virtual time moves to the sleep of
  /// the task that will signal it.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func virtualTimeMovesWhileAJobIsParked() async throws {
    let outcome = try await runDeterministically(timeout: .seconds(10)) {
      bridgedAnswer(after: .seconds(5))
    }
    #expect(outcome.value == 42)
    #expect(lastStepTime(outcome.trace) == .seconds(5))
  }

  /// The wait's timeout passes in the run's time: a 5-second timeout costs no real time.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: [false, true])
  func aWaitsTimeoutPassesInVirtualTime(group: Bool) async throws {
    let outcome = try await runDeterministically(timeout: .seconds(10)) {
      if group {
        let work = DispatchGroup()
        work.enter()  // never left
        return work.wait(timeout: .now() + 5) == .timedOut
      }
      return DispatchSemaphore(value: 0).wait(timeout: .now() + 5) == .timedOut
    }
    #expect(outcome.value)
    #expect(lastStepTime(outcome.trace) == .seconds(5))
  }

  /// A group a task of the run leaves ends the wait of the job that waits for it.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: [nil, 7] as [UInt64?])
  func aGroupLeftByATaskOfTheRunEndsTheWait(seed: UInt64?) async throws {
    let outcome = try await runDeterministically(seed: seed, timeout: .seconds(10)) {
      let work = DispatchGroup()
      let done = Counter()
      for _ in 0..<2 {
        work.enter()
        Task {
          try? await Task.sleep(for: .seconds(1))
          done.value.add(1, ordering: .sequentiallyConsistent)
          work.leave()
        }
      }
      return work.wait(timeout: .now() + 30) == .success
        ? done.value.load(ordering: .sequentiallyConsistent) : -1
    }
    #expect(outcome.value == 2)
  }

  /// Two tasks each bridge a callback; which resumes when is the run's choice: the same seed gives
  /// the same schedule.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func parkedJobsResumeInTheSameOrderForTheSameSeed() async throws {
    func schedule(seed: UInt64) async throws -> [Int?] {
      let outcome = try await runDeterministically(seed: seed, timeout: .seconds(10)) {
        async let first = Task { bridgedAnswer(after: .milliseconds(10)) }.value
        async let second = Task { bridgedAnswer(after: .milliseconds(10)) }.value
        return await first + second
      }
      #expect(outcome.value == 84)
      return outcome.trace.steps.map(\.task)
    }
    for seed: UInt64 in [1, 2, 3] {
      let once = try await schedule(seed: seed)
      #expect(try await schedule(seed: seed) == once, "seed \(seed)")
    }
  }

  /// A wait nothing in the run can end is a deadlock: reported at once, naming the wait and where
  /// the code under test called it, and the wait returns so that the test goes on.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: [Duration.zero, .milliseconds(1)])
  func aWaitNothingCanEndIsReportedAsADeadlockNamingIt(gracePeriod: Duration) async throws {
    let (error, issues) = await collectingIssues {
      await thrownError {
        try await withDeterministicScheduling(timeout: .seconds(10), gracePeriod: gracePeriod) {
          let never = DispatchSemaphore(value: 0)
          never.wait()
        }
      }
    }
    let deadlock = try #require(error as? DeterministicDeadlock)
    let text = "\(deadlock)"
    #expect(text.contains("waiting for DispatchSemaphore.wait() to return"), "\(text)")
    #expect(text.contains("blocks in DispatchSemaphore.wait() at"), "\(text)")
    #expect(text.contains("ParkedJobsTests.swift:\(#line - 8)"), "\(text)")
    #expect(issues.isEmpty, "\(issues)")
  }

  /// `Thread.sleep` and `usleep` in a job last their time in virtual time, and other tasks run
  /// meanwhile, in the order of their deadlines.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aBlockingSleepPassesInVirtualTime() async throws {
    let outcome = try await runDeterministically(timeout: .seconds(10)) { () async -> [String] in
      let log = Locked<[String]>([])
      let other = Task {
        try? await Task.sleep(for: .seconds(1))
        log.withLock { $0.append("task at 1 s") }
      }
      legacyPause(seconds: 5)
      log.withLock { $0.append("slept 5 s") }
      usleep(1_000_000)
      log.withLock { $0.append("slept 6 s") }
      await other.value
      return log.withLock { $0 }
    }
    #expect(outcome.value == ["task at 1 s", "slept 5 s", "slept 6 s"])
    #expect(lastStepTime(outcome.trace) == .seconds(6))
  }

  /// An actor's job runs the task's work: the report names the task whose work waits.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aWaitInAnActorsJobIsReportedForTheTaskWhoseWorkItRuns() async throws {
    let error = await thrownError {
      try await withDeterministicScheduling(timeout: .seconds(10)) { await Stuck().waitForever() }
    }
    let deadlock = try #require(error as? DeterministicDeadlock)
    let text = "\(deadlock)"
    #expect(text.contains("task 1 (the body): suspended, waiting for DispatchSemaphore.wait()"), "\(text)")
    #expect(text.contains("blocks in DispatchSemaphore.wait() at Stuck.waitForever()"), "\(text)")
  }

  /// A callback answered on a global queue, waited for with a semaphore: outside work signals the
  /// parked job, which resumes before virtual time moves.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aSemaphoreSignalledByOutsideWorkResumesBeforeTimeMoves() async throws {
    let outcome = try await runDeterministically(timeout: .seconds(10)) {
      let answered = DispatchSemaphore(value: 0)
      Task { try? await Task.sleep(for: .seconds(1)) }
      DispatchQueue.global().async {
        workInRealTime(milliseconds: 20)  // the outside work's own latency, as real I/O has
        answered.signal()
      }
      return answered.wait(timeout: .now() + 30) == .success
    }
    #expect(outcome.value, "the wait timed out")
    // The body (task 1) resumed before the other task's sleep moved virtual time.
    #expect(outcome.trace.steps.filter { $0.task == 1 }.allSatisfy { $0.time == .zero })
  }

  /// `queue.sync` used as a lock while a block the run queued on that queue waits for a task of the
  /// run: the job is parked for the call, the task runs, and the queue keeps its order — under
  /// every seed (`scripts/queue-sync-seeds.sh` runs a thousand).
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: SeedSweep.seeds)
  func aSyncCallForAQueueWithTheRunsBlocksIsParked(seed: UInt64) async throws {
    let outcome = try await runDeterministically(seed: seed, timeout: .seconds(10)) { () -> [Int] in
      let queue = DispatchQueue(label: "com.example.lock")
      let answered = DispatchSemaphore(value: 0)
      let order = Locked<[Int]>([])
      queue.async {
        answered.wait()  // a block that waits for the run
        order.withLock { $0.append(1) }
      }
      Task { answered.signal() }
      queue.sync { order.withLock { $0.append(2) } }
      return order.withLock { $0 }
    }
    #expect(outcome.value == [1, 2])
  }

  /// A parked `queue.sync` that outlives the run (its queue's block waits for something the run
  /// cannot see): the run's timeout is reported at once, and the call returns when the queue is
  /// done, as without the run.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aSyncCallThatOutlivesTheRunReportsTheTimeoutAtOnce() async throws {
    let release = DispatchSemaphore(value: 0)  // from before the run: the run does not see it
    let (error, issues) = await collectingIssues { () -> (any Error)? in
      let run = Task {
        await thrownError {
          _ = try await runDeterministically(seed: 1, timeout: .seconds(1)) {
            let queue = DispatchQueue(label: "com.example.stuck")
            queue.async { release.wait() }
            queue.sync {}
          }
        }
      }
      // The report comes while the call still waits; then the queue is let go.
      let collector = IssueRouting.collector
      try? await waitUntil("the run's report", timeout: .seconds(30)) {
        (collector?.issues.withLock { $0.count } ?? 0) > 0
      }
      release.signal()
      return await run.value
    }
    #expect(issues.contains { $0.message.contains("Timed out after") }, "\(issues)")
    #expect(error != nil, "the run throws too once the call returns")
  }

  /// `queue.sync` on a queue without blocks of the run is made at once, not parked.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aSyncCallForAFreeQueueIsNotParked() async throws {
    let outcome = try await runDeterministically(seed: 1, timeout: .seconds(10)) { () -> Int in
      let queue = DispatchQueue(label: "com.example.lock")
      let value = Locked(0)
      for _ in 0..<100 { queue.sync { value.withLock { $0 += 1 } } }
      return value.withLock { $0 }
    }
    #expect(outcome.value == 100)
    #expect(outcome.trace.steps.count == 1, "parking would add steps: \(outcome.trace.steps.count)")
  }
}

/// A run drained on the main actor runs every job there: a job parked on the main thread keeps the
/// main actor, as a blocked main thread does.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: MainQueueHandOff.isInEffect))
struct ParkedMainActorJobsTests {
  /// The task that signals runs on another thread while the main thread waits.
  @MainActor @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aBridgeInAMainActorTestIsSignalledByANonisolatedTask() async throws {
    let value = try await withDeterministicScheduling(timeout: .seconds(10)) {
      bridgedAnswer(after: .seconds(1))
    }
    #expect(value == 42)
  }

  /// Main-actor work cannot run while the main thread waits for it: a deadlock in the app too,
  /// reported with the wait.
  @MainActor @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aMainThreadWaitingForMainActorWorkIsADeadlock() async throws {
    let error = await thrownError {
      try await withDeterministicScheduling(timeout: .seconds(10)) { @MainActor in
        let answered = DispatchSemaphore(value: 0)
        Task { @MainActor in answered.signal() }
        answered.wait()
      }
    }
    let deadlock = try #require(error as? DeterministicDeadlock)
    #expect("\(deadlock)".contains("waiting for DispatchSemaphore.wait() to return"), "\(deadlock)")
  }
}
