import Foundation
import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@globalActor actor PlacementTestActor {
  static let shared = PlacementTestActor()
}

@PlacementTestActor final class PlacementCounter {
  var value = 0
}

/// Where a run's jobs are drained: on the caller's thread, or — for a caller that holds an actor
/// the run may need — on the drain thread while the caller suspends.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunPlacementTests {
  @PlacementTestActor @Test func aCallerIsolatedToAnActorThatTheBodyUsesDoesNotDeadlock() async throws {
    let counter = PlacementCounter()
    try await withDeterministicScheduling {
      counter.value += 1
      await Task { @PlacementTestActor in counter.value += 1 }.value
    }
    #expect(counter.value == 2)
  }

  @MainActor @Test func aMainActorCallerRunsMainActorJobsOfTheRun() async throws {
    var hops = 0
    try await withDeterministicScheduling {
      for _ in 0..<3 {
        await Task { @MainActor in MainActor.assertIsolated() }.value
        hops += 1
      }
    }
    #expect(hops == 3)
  }

  /// A `@MainActor` caller stays on the main actor while its run is drained: no hop off the main
  /// actor and back, which cost most of a run from there.
  @MainActor @Test func aMainActorCallersRunIsDrainedOnTheCallersThread() async throws {
    // Compared with the thread after the run, not before it: a run may first wait for another
    // run to finish, and the main actor may come back on another of Dispatch's threads.
    // A run past its inline budget moves to the drain thread (a preempted machine can get there),
    // or yields the main actor between two stretches and may get it back on another thread: the
    // check holds for a run drained in one stretch, as every run is on a machine that is not
    // starved (seen failing once in 20 runs under the thread sanitizer and two busy loops).
    let started = ContinuousClock.now  // outside the run: real time
    let (drainer, handedOff) = try await runDeterministically {
      (threadOfThisCall(), onTheDrainThread())
    }.value
    let caller = threadOfThisCall()
    guard started.duration(to: .now) < DeterministicRun.inlineBudget else { return }
    #expect(handedOff || pthread_equal(caller, drainer) != 0)
  }

  @Test func aNonisolatedCallerRunsEveryKindOfJob() async throws {
    actor Box {
      var value = 0
      func add() { value += 1 }
    }
    let outcome = try await runDeterministically {
      let box = Box()
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<4 { group.addTask { await box.add() } }
      }
      await Task { @MainActor in }.value
      try? await Task.sleep(for: .milliseconds(10))  // virtual time in the run, checked below
      return await box.value
    }
    #expect(outcome.value == 4)
    #expect(outcome.trace.steps.last?.time == .milliseconds(10))
  }

  /// In an exploration, a job that is not the main actor's runs without it, also after the drain
  /// took the main actor for a main-actor job: what a job may do (a choice at a lock) must not
  /// depend on where a time budget ran out.
  @Test func anExplorationsJobsOffTheMainActorNeverHoldIt() async throws {
    let held = Locked<[Bool]>([])
    let result = await explore(.random(schedules: 3, seed: 1)) {
      let beside = Task { await Task.yield() }  // so that there is something to choose
      for _ in 0..<3 {
        await Task { @MainActor in MainActor.assertIsolated() }.value
        let inTask = await Task { MainActorAccess.isHeldHere }.value
        let inBody = MainActorAccess.isHeldHere  // the body, back from its await
        held.withLock { $0 += [inTask, inBody] }
      }
      await beside.value
    }
    #expect(result.failure == nil && result.schedulesRun == 3)
    #expect(held.value == Array(repeating: false, count: 18))
  }
}

final class RunPlacementXCTests: XCTestCase {
  @PlacementTestActor func testACallerIsolatedToAnActorThatTheBodyUsesDoesNotDeadlock() async throws {
    let counter = PlacementCounter()
    try await withDeterministicScheduling {
      await Task { @PlacementTestActor in counter.value += 1 }.value
    }
    XCTAssertEqual(counter.value, 1)
  }
}

/// The thread that runs this synchronous function.
private func threadOfThisCall() -> pthread_t { pthread_self() }

/// Whether the calling thread is Lockstep's drain thread (named so), rather than the thread that
/// started the run. From synchronous code: async code cannot ask which thread it is on.
private func onTheDrainThread() -> Bool { DrainThread.isCurrentThread }

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunHandOffTests {
  @Test func aLongRunMovesToTheDrainThreadAndGoesOnWhereItWas() async throws {
    let threads = Locked<[Bool]>([])
    // Yields until well past the inline budget, noting for every job whether the drain thread
    // runs it.
    let outcome = try await runDeterministically {
      // Lockstep's real clock: inside the run, ContinuousClock.now reads virtual time, which
      // yields do not move.
      let start = RealTime.now
      var jobs = 0
      while RealTime.now - start < .milliseconds(20) {  // allowed: real time is the subject
        threads.withLock { $0.append(onTheDrainThread()) }
        await Task.yield()  // allowed: one job a turn
        jobs += 1
      }
      return jobs
    }
    let seen = threads.value
    #expect(seen.last == true, "after the budget, the drain thread runs it")
    // It moved once, between two jobs, and never back — unless runs of other tests held every
    // place on the cooperative pool (``InlineDrains``): then it started on a drain thread.
    let switches = zip(seen, seen.dropFirst()).filter { $0 != $1 }.count
    #expect(switches == (seen.first == false ? 1 : 0), "\(switches) switches")
    #expect(outcome.value == seen.count)
    #expect(outcome.trace.steps.count >= seen.count)
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct InlineDrainTests {
  /// While every place for runs drained on the cooperative pool is taken, a run starts on a drain
  /// thread of its own: a job that blocks never blocks the last threads of the pool.
  @Test func aRunWithoutAPlaceOnThePoolDrainsOnAThreadOfItsOwn() async throws {
    var taken = 0
    defer { for _ in 0..<taken { InlineDrains.giveBack() } }
    try await waitUntil("every inline place is taken") {
      while InlineDrains.take() { taken += 1 }
      return taken == InlineDrains.limit
    }
    let onDrainThread = try await runDeterministically { onTheDrainThread() }.value
    #expect(onDrainThread)
  }
}
