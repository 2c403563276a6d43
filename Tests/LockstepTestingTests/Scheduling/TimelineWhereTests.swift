import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// The line of each `await` below, by what it awaits.
private enum Lines {
  static let gate = #line + 8
  static let yield = #line + 13
  static let hop = #line + 18
}

/// Waits at a gate, on the line `Lines.gate` names.
@inline(never)
private func waitAtTheGate(_ gate: Gate) async {
  try? await gate.wait()
}

/// Yields, on the line `Lines.yield` names.
@inline(never)
private func yieldOnce() async {
  await Task.yield()
}

/// Calls into an actor, on the line `Lines.hop` names.
@inline(never)
private func callTheActor(_ counter: PingCounter) async {
  await counter.increment()
}

private actor PingCounter {
  var value = 0
  func increment() { value += 1 }
}

/// The timeline's line of step `step`, or of the stretch or repetition that holds it.
private func line(of step: Int, in text: String) -> String? {
  text.split(separator: "\n").map(String.init).first { line in
    let number = line.drop { $0 == " " }.prefix { $0 != " " }
    let bounds = number.dropLast().split(separator: "–").compactMap { Int($0) }
    guard number.hasSuffix("."), let first = bounds.first else { return false }
    return (first...(bounds.last ?? first)).contains(step)
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TimelineWhereTests {
  @Test(.enabled(if: SuspendedTaskStacks.unavailability == nil)) func eachStepSaysWhereItsTaskWasLeftWaiting()
    async throws
  {
    let callLine = Locked(0)
    let outcome = try await runDeterministically {
      let gate = Gate("go")
      let counter = PingCounter()
      let waiter = Task { await waitAtTheGate(gate) }
      let yielder = Task { await yieldOnce() }
      try await gate.waitForArrivals(1)
      callLine.withLock { $0 = #line + 1 }
      await callTheActor(counter)
      gate.open()
      await waiter.value
      await yielder.value
    }
    let text = outcome.trace.timeline.description
    let file = "TimelineWhereTests.swift"
    #expect(
      text.contains("waits for Gate(\"go\") to open in waitAtTheGate(_:) at \(file):\(Lines.gate)"), "\(text)"
    )
    #expect(text.contains("awaits in yieldOnce() at \(file):\(Lines.yield)"), "\(text)")
    // The body waits to enter the nonisolated function (its hop off the body's executor), at the
    // line of the call.
    #expect(
      text.contains("waits to enter callTheActor(_:) (called at \(file):\(callLine.value))"), "\(text)")
  }

  @Test func everyStepOfTheTraceHasItsNumberInTheTimeline() async throws {
    let outcome = try await runDeterministically {
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          await Task.yield()
          await Task.yield()
        }
        group.addTask { await Task.yield() }
      }
    }
    let text = outcome.trace.timeline.description
    #expect(outcome.trace.steps.contains { $0.task == nil }, "the Task.yield() wake-ups are steps of no task")
    for step in 1...outcome.trace.steps.count {
      #expect(line(of: step, in: text) != nil, "step \(step) is missing:\n\(text)")
    }
    #expect(text.contains("(Task.yield)"), "\(text)")
  }

  @Test func theFailingStepIsMarked() async throws {
    let (result, issues) = await collectingIssues {
      await explore(.random(schedules: 20, seed: 1)) {
        let counter = PingCounter()
        await counter.increment()
        #expect(await counter.value == 2, "fails the schedule")
      }
    }
    #expect(!issues.isEmpty)
    let failure = try #require(result.failure)
    let text = failure.timeline.description
    let marked = text.split(separator: "\n").filter { $0.contains("✗ a check failed here") }
    #expect(marked.count == 1, "\(text)")
    #expect(marked.first?.contains("test body") == true, "\(text)")
  }

  @Test func aLoopOfRepeatedStepsIsToldOnce() async throws {
    let outcome = try await runDeterministically {
      let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
      let consumer = Task {
        for await _ in stream {}
      }
      for value in 0..<30 {
        continuation.yield(value)
        await Task.yield()
      }
      continuation.finish()
      await consumer.value
    }
    let text = outcome.trace.timeline.description
    #expect(text.contains("more times"), "\(text)")
    #expect(text.split(separator: "\n").count < outcome.trace.steps.count / 3, "\(text)")
    for step in 1...outcome.trace.steps.count {
      #expect(line(of: step, in: text) != nil, "step \(step) is missing:\n\(text)")
    }
  }

  @Test(.enabled(if: TaskCreationHook.isInEffect)) func longCreationSitesAreShortOnEachLineAndInFullOnce()
    async throws
  {
    let outcome = try await runDeterministically {
      await withTaskGroup(of: Void.self) { group in
        group.addTask {}
      }
    }
    let timeline = outcome.trace.timeline
    let child = try #require(timeline.entries.first { $0.task == 2 })
    #expect(child.taskName.contains("created in closure #1 in"), "\(child.taskName)")
    let text = timeline.description
    let lines = text.split(separator: "\n")
    // Each line names the task briefly; the legend gives its full name once.
    #expect(lines.contains { $0.contains(" task 2  ") }, "\(text)")
    #expect(lines.filter { $0.contains("closure #") }.count == 1, "\(text)")
    #expect(text.contains("Where the tasks were created:\n  task 2 (created in closure #1 in"), "\(text)")
    #expect(timeline.text(lineWidth: nil).contains("Where the tasks were created:\n  \(child.taskName)"))
  }

  @Test func theTimeColumnKeepsTheNamesInOneColumn() async throws {
    let outcome = try await runDeterministically {
      let sleeper = Task(name: "sleeper") { try? await Task.sleep(for: .milliseconds(80)) }
      await sleeper.value
    }
    let lines = outcome.trace.timeline.description.split(separator: "\n")
    // Where each name begins: after the time and the spaces that pad it.
    let columns = Set(
      lines.compactMap { line -> Int? in
        guard let close = line.firstIndex(of: "]") else { return nil }
        let name = line[line.index(after: close)...].firstIndex { $0 != " " } ?? line.endIndex
        return line.distance(from: line.startIndex, to: name)
      })
    #expect(columns.count == 1, "\(lines)")
  }

  @Test(.enabled(if: TaskCreationHook.isInEffect)) func thePictureWrapsWhatFailedAndNamesLanesApart()
    async throws
  {
    let reason = String(repeating: "a long explanation of what went wrong, ", count: 6) + "THE END"
    let outcome = try await runDeterministically {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await Task.yield() }
        group.addTask { await Task.yield() }
      }
    }
    let picture = TimelinePicture(
      timeline: outcome.trace.timeline, title: "title", replay: nil, failures: [reason])
    let svg = picture.svg
    #expect(svg.contains("THE END"), "the end of what failed is drawn")
    // The two children's lane headers differ in what they show, not only in their tooltips.
    let headers = picture.lanes.map(\.name)
    #expect(headers.count == 3, "\(headers)")
    #expect(Set(headers).count == headers.count, "\(headers)")
    for header in headers { #expect(svg.contains(">\(header)<") || header.count > 30, "\(header)") }
  }
}
