import Lockstep
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// The line where `strandedConsumer` creates its task.
private let consumerCreationLine = #line + 5

/// A consumer that waits for a stream nobody finishes, created by `factory`.
private func strandedConsumer(_ factory: any TaskFactory) async {
  let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
  let consumer = factory.task(name: "feed consumer") {
    for await _ in stream {}
  }
  _ = continuation
  await consumer.value
}

private actor Ledger {
  func write(_ text: String) { Timeline.note(text) }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct TaskNamesTests {
  @Test(arguments: [false, true])
  func aDeadlockReportNamesAFactoryTaskAndWhereItWasCreated(test: Bool) async throws {
    let factory: any TaskFactory = test ? TestTaskFactory() : LiveTaskFactory()
    let error = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling { await strandedConsumer(factory) }
    }
    let consumer = error?.tasks.first { $0.contains("\"feed consumer\"") }
    #expect(
      consumer?.contains(
        "(created at LockstepTestingTests/TaskNamesTests.swift:\(consumerCreationLine):") == true,
      "\(String(describing: error?.tasks))")
    #expect(error?.trace.taskNames.values.contains("feed consumer") == true)
  }

  @Test func aFactoryTaskThatFinishesAtOnceIsNamed() async throws {
    let outcome = try await runDeterministically {
      let tasks = LiveTaskFactory()
      await tasks.task(name: "quick") {}.value
    }
    #expect(outcome.trace.taskNames.values.contains("quick"))
    #expect(outcome.trace.timeline.entries.contains { $0.taskName == "\"quick\"" })
  }

  @Test func aTaskNamedWithTaskNameIsNamedOnceItSleeps() async throws {
    let outcome = try await runDeterministically {
      // The sleep is the subject (a name is read when the task sleeps); virtual time, not a wait.
      await Task(name: "poller") { try? await Task.sleep(for: .milliseconds(5)) }.value
    }
    #expect(outcome.trace.taskNames[2] == "poller")
  }

  @Test func aTaskStartedInlineDoesNotLendItsNameToTheTaskWhoseJobStartedIt() async throws {
    let outcome = try await runDeterministically {
      await Task(name: "outer") {
        // `Task.immediate` runs the inner task on the outer task's job until it suspends: while
        // it does, the inner task is the current one. The yields are the subject, not a wait: in
        // the run each is a suspension whose job is enqueued while a task runs, which is when the
        // scheduler reads a name.
        // Back on a job of its own, the inner task notes: that records its name under its own
        // number, so that the check below that no other task bears it is not vacuous.
        let inner = Task.immediate(name: "inner") {
          await Task.yield()
          Timeline.note("inner resumes on its own job")
        }
        await Task.yield()
        await inner.value
      }.value
    }
    #expect(outcome.trace.taskNames[2] == "outer", "\(outcome.trace.taskNames)")
    #expect(outcome.trace.taskNames[3] == "inner", "\(outcome.trace.taskNames)")
    #expect(outcome.trace.taskNames.allSatisfy { $0.value != "inner" || $0.key == 3 })
  }

  @Test func aStepThatRunsTwoTasksWorkSaysWhyItsNumberRepeats() async throws {
    // Two tasks call the actor while it is busy with the body: one actor job runs both calls.
    let outcome = try await runDeterministically {
      let ledger = Ledger()
      let first = Task(name: "first") { await ledger.write("first writes") }
      let second = Task(name: "second") { await ledger.write("second writes") }
      await ledger.write("the body writes")
      await first.value
      await second.value
    }
    let entries = outcome.trace.timeline.entries
    let repeated = entries.filter { entry in
      entries.contains { $0.step == entry.step && $0.task != entry.task }
    }
    try #require(!repeated.isEmpty, "no actor job ran two tasks' work:\n\(outcome.trace.timeline)")
    for step in Set(repeated.map(\.step)) {
      let lines = repeated.filter { $0.step == step }
      #expect(lines.first?.actions.contains("in the same actor job as the line above") == false)
      #expect(lines.dropFirst().allSatisfy { $0.actions.last == "in the same actor job as the line above" })
    }
  }
}

final class TaskNamesXCTests: XCTestCase {
  func testADeadlockReportNamesATestTaskFactoryTask() async {
    do {
      try await withDeterministicScheduling { await strandedConsumer(TestTaskFactory()) }
      XCTFail("expected a deadlock")
    } catch let deadlock as DeterministicDeadlock {
      XCTAssertTrue(deadlock.description.contains("\"feed consumer\" (created at"), deadlock.description)
    } catch {
      XCTFail("unexpected \(error)")
    }
  }
}
