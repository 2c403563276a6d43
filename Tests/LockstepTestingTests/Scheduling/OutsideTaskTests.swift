import Dispatch
import Foundation
import Lockstep
import LockstepTestSupport
import Synchronization
import Testing

@testable import LockstepTesting

/// The actor a run's task holds while code outside the run creates a task isolated to it.
@globalActor private actor HeldActor {
  static let shared = HeldActor()
}

/// Where a piece of work ran: in a run (on its drain thread) or outside it.
private func whereThisRuns() -> String { DrainingRun.current == nil ? "outside" : "in the run" }

/// What the task from outside saw.
private struct Seen: Sendable {
  var startedIn = ""
  var child: Task<String, Never>?
}

/// Creates, on a thread of its own that the run did not start (a thread a run's job starts is
/// the run's, and so are the tasks it creates), a task isolated to ``HeldActor`` whose work
/// reports to `seen`; returns once the task is created (its first job is then queued on the
/// actor). The caller waits by watching a flag, unseen by the run: a wait the run saw (a
/// semaphore's) for a thread outside it would be a wait nothing in the run can end.
@HeldActor private func createTaskFromOutside(reportingTo seen: Locked<Seen>) -> Task<Void, Never>? {
  let created = Locked<Task<Void, Never>?>(nil)
  let ready = Atomic(false)
  let thread = Thread {
    created.withLock {
      $0 = Task { @HeldActor in
        let startedIn = whereThisRuns()
        let child = Task.detached { whereThisRuns() }  // off the actor: a job of its own
        // The subject: in real time, not the run's virtual time (where it would be a step of the
        // run before the body's hour ends).
        try? await Task.sleep(for: .nanoseconds(1))
        seen.withLock { $0 = Seen(startedIn: startedIn, child: child) }
      }
    }
    ready.store(true, ordering: .releasing)
  }
  ParkedJobs.outsideRun { thread.start() }
  while !ready.load(ordering: .acquiring) {}
  return created.withLock { $0 }
}

/// A task from outside a run whose work an actor job of the run runs stays outside the run.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct OutsideTaskTests {
  // The run learns of a task created on another thread from the creation hook (Linux); without
  // it, such a task is adopted once it runs on the actor the run holds, as on Apple platforms.
  @Test(.enabled(if: TaskCreationHook.isInEffect))
  func aTaskCreatedOutsideOnAnActorTheRunHoldsIsNotAdopted() async throws {
    let seen = Locked(Seen())
    // The run's task holds the actor while a thread outside the run creates a task isolated to
    // it: the task's first job waits on the actor, and the actor's job of the run runs it, on the
    // drain thread. Its child task, its sleep and what follows are not the run's.
    let outcome = try await runDeterministically {
      let task = await createTaskFromOutside(reportingTo: seen)
      try await Task.sleep(for: .seconds(3600))  // still running when the task sleeps
      return task
    }
    let task = try #require(outcome.value)
    await task.value
    let result = seen.withLock { $0 }
    #expect(result.startedIn == "in the run", "the actor's job of the run ran the task's work")
    #expect(await result.child?.value == "outside", "a task it creates is not the run's")
    // Every step of the run is the body's or an actor's job: neither the task's sleep nor its
    // child became a task of the run.
    let tasks = Set(outcome.trace.steps.compactMap(\.task))
    #expect(tasks == [1], "\(outcome.trace.timeline)")
  }
}
