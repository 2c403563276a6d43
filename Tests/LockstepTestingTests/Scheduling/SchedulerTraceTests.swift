import Lockstep
import LockstepTestSupport
import Testing

@testable import LockstepTesting

private actor Store {
  var value = 0
  func increment() { value += 1 }
}

/// What a ``SchedulerTrace`` records: its steps, the tasks they belong to, and task names.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SchedulerTraceTests {
  @Test func namedTasksAreNamedByTheirNumber() async throws {
    let outcome = try await runDeterministically {
      let named = Task(name: "worker") { Timeline.note("works") }
      let unnamed = Task { Timeline.note("works too") }
      await named.value
      await unnamed.value
    }
    // Numbered in the order the run first saw them: the body is 1, then "worker", then the other.
    #expect(outcome.trace.taskNames == [2: "worker"])
    #expect(outcome.trace.steps.map(\.task).contains(3))
  }

  @Test func aTaskThatOnlyHopsBetweenExecutorsIsNamedToo() async throws {
    let outcome = try await runDeterministically {
      let hopper = Task(name: "hopper") { await MainActor.run {} }
      await hopper.value
    }
    // Where the run sees task creation (TaskCreationHook, Linux), the name comes from there.
    if TaskCreationHook.isInEffect {
      #expect(outcome.trace.taskNames[2] == "hopper")
      return
    }
    // Known bug elsewhere: the run reads a task's name from the current task when the task
    // enqueues a job. When a task hops to another executor (the main actor, an actor), the runtime
    // enqueues the job after the task has left the thread, so there is no current task and the
    // name is never recorded — unless the task also notes, waits at a Lockstep primitive, sleeps
    // or yields.
    withKnownIssue("the name of a task that only hops between executors is not recorded") {
      #expect(outcome.trace.taskNames[2] == "hopper")
    } matching: { issue in
      "\(issue)".contains("(outcome.trace.taskNames[2] → nil) == \"hopper\"")
    }
  }

  @Test func stepsSayWhichTaskRanWhereAndWhen() async throws {
    let outcome = try await runDeterministically {
      let store = Store()
      let worker = Task(name: "worker") {
        await MainActor.run {}
        await store.increment()
        try await Task.sleep(for: .milliseconds(80))  // allowed: virtual time
      }
      try await worker.value
    }
    let steps = outcome.trace.steps
    #expect(steps.first?.task == 1)  // the body's first job
    // The worker's hop to the main actor runs there; the body's jobs never do.
    #expect(steps.contains { $0.task == 2 && $0.isMainActor })
    #expect(!steps.contains { $0.task == 1 && $0.isMainActor })
    // The actor's job belongs to no task.
    #expect(steps.contains { $0.task == nil })
    // The worker woke from its sleep at 80 ms of virtual time; everything before ran at 0.
    // Virtual time jumped once, to wake the sleep: every step before ran at 0, every later one
    // then. (About 80 ms: a Task.sleep's duration is recovered from the real clock.)
    let woke = try #require(steps.firstIndex { $0.wokeFromSleep })
    #expect(steps.filter(\.wokeFromSleep).count == 1)
    #expect(steps[woke].time > .zero && steps[woke].time <= .milliseconds(80))
    #expect(steps[..<woke].allSatisfy { $0.time == .zero })
    #expect(steps[woke...].allSatisfy { $0.time == steps[woke].time })
  }

  @Test func aStepDescribesItsTaskExecutorTimeAndWakeUp() async throws {
    let outcome = try await runDeterministically {
      let store = Store()
      let worker = Task(name: "worker") {
        await MainActor.run {}
        await store.increment()
        try await Task.sleep(for: .milliseconds(80))  // allowed: virtual time
      }
      try await worker.value
    }
    for step in outcome.trace.steps {
      let text = step.description
      #expect(text.hasPrefix(step.task.map { "task \($0)" } ?? "job"), "\(text)")
      #expect(text.contains(" @MainActor") == step.isMainActor, "\(text)")
      #expect(text.contains("at \(step.time.lockstepText)"), "\(text)")
      #expect(text.hasSuffix(" (woke)") == step.wokeFromSleep, "\(text)")
    }
    #expect(outcome.trace.steps.contains { $0.task == nil && $0.isMainActor == false })
  }

  @Test func theTraceDescriptionIsOneNumberedLinePerStepWithTaskNames() async throws {
    let outcome = try await runDeterministically {
      let worker = Task(name: "worker") { Timeline.note("works") }
      await worker.value
    }
    let trace = outcome.trace
    let lines = trace.description.split(separator: "\n").map(String.init)
    #expect(lines.count == trace.steps.count)
    for (index, step) in trace.steps.enumerated() where index < lines.count {
      let name = step.task.flatMap { trace.taskNames[$0] }.map { " \"\($0)\"" } ?? ""
      #expect(lines[index] == "\(index + 1). \(step)\(name)")
    }
    #expect(lines.contains { $0.hasSuffix("\"worker\"") })
  }
}
