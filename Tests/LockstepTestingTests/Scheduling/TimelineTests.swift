import LockstepTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct TimelineTests {
  @Test func theTimelineSaysWhoStartedWaitedNotedAndFinished() async throws {
    let outcome = try await runDeterministically {
      let gate = Gate("go")
      let tasks = TestTaskFactory()
      _ = tasks.task(name: "worker") {
        try? await gate.wait()
        Timeline.note("writes the result")
      }
      try await gate.waitForArrivals(1)
      gate.open()
      try await tasks.waitUntilIdle()
    }
    let lines = outcome.trace.timeline.entries.map { "\($0.taskName): \($0.actions.joined(separator: ", "))" }
    #expect(lines.first == "test body: started, waits for 1 arrival(s) at Gate(\"go\")")
    #expect(lines.contains("\"worker\": started, waits for Gate(\"go\") to open"))
    #expect(lines.contains("\"worker\": resumed, writes the result, finished"))
    #expect(lines.last?.hasSuffix("finished") == true)
  }

  @Test func timesShowOnceVirtualTimeMoves() async throws {
    let outcome = try await runDeterministically {
      try await Task.sleep(for: .milliseconds(80))  // allowed: virtual time
    }
    let text = outcome.trace.timeline.description
    #expect(text.contains("sleeps until 80 ms"))
    #expect(text.contains("[80 ms]"))
  }

  @Test func noteDoesNothingOutsideADeterministicRun() {
    Timeline.note("nobody hears this")
  }
}
