import LockstepTestSupport
import LockstepTesting
import Testing

/// A run in which a named worker waits at a gate, the body opens it, and the worker notes a write.
private func gatedWorkerRun() async throws -> DeterministicOutcome<Void> {
  try await runDeterministically {
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
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TimelineTests {
  @Test func theTimelineSaysWhoStartedWaitedNotedAndFinished() async throws {
    let entries = try await gatedWorkerRun().trace.timeline.entries
    let body = entries.filter { $0.task == 1 }
    let worker = entries.filter { $0.taskName == "\"worker\"" }

    // The body starts the run and waits for the worker to arrive at the gate.
    #expect(entries.first?.task == 1)
    #expect(body.first?.taskName == "test body")
    #expect(body.first?.actions.first == "started")
    #expect(body.first?.actions.contains { $0.contains("Gate(\"go\")") } == true)
    // The worker starts and waits at the gate; once resumed, it notes its write, then finishes.
    #expect(worker.first?.actions.first == "started")
    #expect(worker.first?.actions.contains { $0.contains("Gate(\"go\")") } == true)
    #expect(worker.last?.actions.first == "resumed")
    #expect(worker.last?.actions.suffix(2) == ["writes the result", "finished"])
    // The body finishes last.
    #expect(entries.last?.task == 1)
    #expect(entries.last?.actions.last == "finished")
  }

  @Test func entriesFollowTheStepsOfTheTrace() async throws {
    let trace = try await gatedWorkerRun().trace
    let entries = trace.timeline.entries
    #expect(entries.map(\.step) == entries.map(\.step).sorted())
    #expect(entries.first?.step == 1)
    for entry in entries {
      let step = try #require(trace.steps.dropFirst(entry.step - 1).first, "\(entry)")
      #expect(entry.time == step.time)
      // An entry is the step's own task, or a task whose work an actor's job ran.
      #expect(entry.task == step.task || step.task == nil, "\(entry)")
      let expectedName =
        trace.taskNames[entry.task].map { "\"\($0)\"" }
        ?? (entry.task == 1 ? "test body" : "task \(entry.task)")
      #expect(entry.taskName == expectedName)
    }
  }

  @Test func anEntrysDescriptionIsItsNumberedLine() async throws {
    let entries = try await gatedWorkerRun().trace.timeline.entries
    for entry in entries {
      #expect(
        entry.description.hasPrefix(
          "\(entry.step). \(entry.taskName)  \(entry.actions.joined(separator: ", "))"))
    }
  }

  @Test func timesReadInMillisecondsBelowASecondAndInSecondsFromOne() async throws {
    // The TestClock is moved by the run exactly, so each stretch of the body has an exact time.
    let outcome = try await runDeterministically {
      let clock = TestClock(advancesAutomatically: true)
      Timeline.note("at zero")
      for (wait, note) in [
        (Duration.milliseconds(80), "at 80 ms"), (.microseconds(1_500), "at 81.5 ms"),
        (.microseconds(918_500), "at 1 s"), (.milliseconds(1_500), "at 2.5 s"),
      ] {
        try await clock.sleep(for: wait)
        Timeline.note(note)
      }
    }
    let lines = outcome.trace.timeline.description.split(separator: "\n")
    func line(noting note: String) -> Substring? { lines.first { $0.contains(note) } }
    // Whole milliseconds, fractions of a millisecond, whole seconds, fractions of a second.
    #expect(line(noting: "at 80 ms")?.contains("[80 ms]") == true)
    #expect(line(noting: "at 81.5 ms")?.contains("[81.5 ms]") == true)
    #expect(line(noting: "at 1 s")?.contains("[1 s]") == true)
    #expect(line(noting: "at 2.5 s")?.contains("[2.5 s]") == true)
    #expect(line(noting: "at zero")?.contains("[0 s]") == true)
    // The entries carry the same times.
    let noted = outcome.trace.timeline.entries.filter { $0.actions.contains("at 2.5 s") }
    #expect(noted.map(\.time) == [.milliseconds(2_500)])
  }

  @Test func timesAreShownOnlyOnceVirtualTimeMoves() async throws {
    let still = try await gatedWorkerRun().trace.timeline
    #expect(!still.description.contains("["))
    let moved = try await runDeterministically {
      try await TestClock(advancesAutomatically: true).sleep(for: .milliseconds(80))
    }.trace.timeline
    let stepLines = moved.description.split(separator: "\n").filter {
      $0.drop { $0 == " " }.first?.isNumber == true
    }
    #expect(!stepLines.isEmpty && stepLines.allSatisfy { $0.contains(" [") }, "\(moved)")
    // An entry shows its time once virtual time has moved.
    #expect(moved.entries.allSatisfy { $0.description.contains(" [") == ($0.time > .zero) })
    #expect(moved.entries.contains { $0.time > .zero })
  }

  @Test func aSleepIsToldOnTheSleepersLine() async throws {
    let outcome = try await runDeterministically {
      let sleeper = Task(name: "sleeper") {
        try await Task.sleep(for: .milliseconds(80))  // allowed: virtual time
        Timeline.note("awake")
      }
      try await sleeper.value
    }
    let entries = outcome.trace.timeline.entries
    let sleeper = entries.filter { $0.taskName == "\"sleeper\"" }
    #expect(sleeper.last?.actions.contains("awake") == true)
    // The runtime wakes a sleeper through a sleep task of its own; the run credits it to the
    // sleeper, and counts no task for it.
    #expect(sleeper.contains { $0.actions.contains { $0.hasPrefix("sleeps until") } })
    #expect(sleeper.contains { $0.actions.first == "woke from its sleep" })
    #expect(!entries.contains { $0.taskName == "task 3" })
  }

  @Test func noteDoesNothingOutsideADeterministicRun() async throws {
    Timeline.note("nobody hears this")
    let outcome = try await runDeterministically { Timeline.note("the run hears this") }
    let actions = outcome.trace.timeline.entries.flatMap(\.actions)
    #expect(actions.contains("the run hears this"))
    #expect(!actions.contains("nobody hears this"))
  }

  @Test func linesAreAtMost120CharactersAndThePictureHasTheWholeText() async throws {
    let long = String(repeating: "a long note about what the task decided ", count: 6)
    let outcome = try await runDeterministically {
      let worker = Task(name: "a worker with a name as long as a sentence can reasonably be") {
        Timeline.note(long)
      }
      await worker.value
    }
    let timeline = outcome.trace.timeline
    let lines = timeline.description.split(separator: "\n")
    #expect(lines.allSatisfy { $0.count <= Timeline.defaultLineWidth }, "\(timeline)")
    #expect(timeline.text(lineWidth: nil).split(separator: "\n").contains { $0.count > 200 })
    // Wrapping loses no character.
    let characters = { (text: String) in text.filter { !$0.isWhitespace } }
    #expect(characters(timeline.description) == characters(timeline.text(lineWidth: nil)))
    #expect(outcome.trace.svg.contains(long.trimmingCharacters(in: .whitespaces)), "the picture has it whole")
  }

  @Test func tasksThatShareANameGetDistinctLabels() async throws {
    let outcome = try await runDeterministically {
      let first = Task(name: "worker") { Timeline.note("first") }
      let second = Task(name: "worker") { Timeline.note("second") }
      await first.value
      await second.value
    }
    let timeline = outcome.trace.timeline
    let labels = Set(
      timeline.entries.filter { $0.actions.contains("first") || $0.actions.contains("second") }.map(
        \.taskName))
    #expect(labels == ["\"worker\" (task 2)", "\"worker\" (task 3)"], "\(timeline)")
  }
}
