import LockstepTestSupport
import LockstepTesting
import Testing

/// Each kind of event a timeline tells (a sleep, a wait, a note, an injected cancellation, a
/// finished task) sits on the step in which its task did it — never on the next step, which may
/// be another task's.
///
/// Every run below is built so that another task runs right after the step of the event: an event
/// put one step too late would land on that task's step and invent a line for a task that did not
/// run there ("… in the same actor job as the line above").
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TimelineEventStepTests {
  @Test func aSleepSitsOnTheStepThatSlept() async throws {
    let outcome = try await runDeterministically {
      let a = Task(name: "A") { try await Task.sleep(for: .milliseconds(80)) }  // virtual time
      let b = Task(name: "B") { Timeline.note("B works") }
      try await a.value
      await b.value
    }
    let trace = outcome.trace
    let a = trace.timeline.entries.filter { $0.taskName == "\"A\"" }
    let slept = try #require(a.first { $0.actions.contains("sleeps until 80 ms") })
    // "A" slept in the step in which it started, not in "B"'s step after it.
    #expect(slept.actions.first == "started")
    #expect(taskOfStep(slept, in: trace) == slept.task)
    let b = try #require(trace.timeline.entries.first { $0.taskName == "\"B\"" })
    #expect(b.actions == ["started", "B works"])
    expectEveryLineIsItsStepsTask(trace)
  }

  @Test func eachOfTwoSleepsSitsOnItsOwnStep() async throws {
    let outcome = try await runDeterministically {
      let sleeper = Task(name: "sleeper") {
        try await Task.sleep(for: .milliseconds(40))  // virtual time
        try await Task.sleep(for: .milliseconds(40))
        Timeline.note("awake")
      }
      try await sleeper.value
    }
    let lines = outcome.trace.timeline.entries.filter { $0.taskName == "\"sleeper\"" }
    // The first sleep on the line that started the task; the second on the line of the task's
    // own job after it woke (the runtime wakes a sleeper through a job of its own, the "woke from
    // its sleep" line, which then resumes the task).
    #expect(
      lines.map(\.actions) == [
        ["started", "sleeps until 40 ms"], ["woke from its sleep"], ["resumed", "sleeps until 80 ms"],
        ["woke from its sleep"], ["resumed", "awake"],
      ])
    let times: [Duration] = [
      .zero, .milliseconds(40), .milliseconds(40), .milliseconds(80), .milliseconds(80),
    ]
    #expect(lines.map(\.time) == times)
    expectEveryLineIsItsStepsTask(outcome.trace)
  }

  @Test func aWaitSitsOnTheStepThatWaited() async throws {
    let outcome = try await runDeterministically {
      let gate = Gate("go")
      let waiter = Task(name: "waiter") { try await gate.wait() }
      let other = Task(name: "other") { Timeline.note("other works") }
      await other.value
      try await gate.waitForArrivals(1)
      gate.open()
      try await waiter.value
    }
    let trace = outcome.trace
    let waited = try #require(
      trace.timeline.entries.first { $0.actions.contains("waits for Gate(\"go\") to open") })
    #expect(waited.taskName == "\"waiter\"")
    #expect(waited.actions.first == "started")
    #expect(taskOfStep(waited, in: trace) == waited.task)
    expectEveryLineIsItsStepsTask(trace)
  }

  @Test func aNoteSitsOnTheStepThatNoted() async throws {
    let outcome = try await runDeterministically {
      let first = Task(name: "first") { Timeline.note("first writes") }
      let second = Task(name: "second") { Timeline.note("second writes") }
      await first.value
      await second.value
    }
    let trace = outcome.trace
    for name in ["first", "second"] {
      let noted = try #require(
        trace.timeline.entries.first { $0.actions.contains("\(name) writes") })
      #expect(noted.taskName == "\"\(name)\"")
      #expect(noted.actions == ["started", "\(name) writes"])
      #expect(taskOfStep(noted, in: trace) == noted.task)
    }
    expectEveryLineIsItsStepsTask(trace)
  }

  @Test func aFinishSitsOnTheStepThatFinished() async throws {
    let outcome = try await runDeterministically {
      let tasks = TestTaskFactory()
      _ = tasks.task(name: "short") { Timeline.note("short works") }
      _ = tasks.task(name: "next") { Timeline.note("next works") }
      try await tasks.waitUntilIdle()
    }
    let trace = outcome.trace
    let finished = try #require(
      trace.timeline.entries.first { $0.taskName == "\"short\"" && $0.actions.contains("finished") })
    #expect(finished.actions == ["started", "short works", "finished"])
    #expect(taskOfStep(finished, in: trace) == finished.task)
    expectEveryLineIsItsStepsTask(trace)
  }

  @Test func anInjectedCancellationSitsOnTheStepOfTheWaitItCancels() async throws {
    let (result, _) = await collectingIssues {
      await explore(.exhaustive(maxPreemptions: 0), cancellation: .atLockstepWaits) {
        let gate = Gate("go")
        let waiter = Task(name: "waiter") { try? await gate.wait() }
        let other = Task(name: "other") { Timeline.note("other works") }
        await other.value
        try await gate.waitForArrivals(1)
        gate.open()
        await waiter.value
        if waiter.isCancelled { throw CancellationError() }
      }
    }
    let failure = try #require(result.failure)
    let entries = failure.timeline.entries
    let cancelled = try #require(
      entries.first { $0.actions.contains("is cancelled here (injected by explore)") })
    #expect(cancelled.taskName == "\"waiter\"")
    #expect(
      cancelled.actions == [
        "started", "waits for Gate(\"go\") to open", "is cancelled here (injected by explore)",
      ])
    #expect(!entries.contains { $0.actions.contains("in the same actor job as the line above") })
  }
}

/// No line of the run's timeline is a task other than the one whose job ran in its step: these
/// runs have no actor whose job could run the work of another task.
private func expectEveryLineIsItsStepsTask(
  _ trace: SchedulerTrace, sourceLocation: SourceLocation = #_sourceLocation
) {
  for entry in trace.timeline.entries {
    #expect(taskOfStep(entry, in: trace) == entry.task, "\(entry)", sourceLocation: sourceLocation)
    #expect(
      !entry.actions.contains("in the same actor job as the line above"), "\(entry)",
      sourceLocation: sourceLocation)
  }
}

/// The task of the job that ran in the step of `entry` (`nil` for a job that is not a task, or a
/// step the trace does not have).
private func taskOfStep(_ entry: Timeline.Entry, in trace: SchedulerTrace) -> Int? {
  trace.steps.dropFirst(entry.step - 1).first?.task
}
