import LockstepTestSupport
import Synchronization
import Testing

@testable import LockstepTesting

/// A deadlock report says where each unfinished task waits: the `await` it is suspended at and
/// the awaits of its async callers.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SuspendedTaskStacksTests {
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: SuspendedTaskStacks.unavailability == nil))
  func theReportNamesTheAwaitOfEachStuckTask() async throws {
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let finished = Task { 1 }
        _ = await finished.value
        let mailbox = StuckMailbox()
        let worker = Task { await StuckAwaits.work(on: mailbox) }
        Task { await StuckAwaits.waitForGroup() }
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        Task { await StuckAwaits.iterate(stream) }
        let waiter = Task { await StuckAwaits.waitForValue(of: worker) }
        await waiter.value
        continuation.finish()
      }
    }
    let description = deadlock?.description ?? ""
    let lines = description.split(separator: "\n").map(String.init)
    let file = "SuspendedTaskStacksTests.swift"

    /// Whether a line of the report says `kind` (`waits at`, `called from`) `function` at `line`.
    func says(_ kind: String, _ function: String, line: Int) -> Bool {
      lines.contains {
        $0.hasPrefix("    \(kind) ") && $0.contains(function) && $0.hasSuffix(" at \(file):\(line)")
      }
    }
    #expect(!description.contains("is not shown"), "\(description)")
    // A never-resumed continuation inside an actor method, called from a function of a task.
    #expect(says("waits at", "StuckMailbox.receive()", line: StuckMailbox.receiveAwait), "\(description)")
    #expect(says("called from", "work(on:)", line: StuckAwaits.workAwait), "\(description)")
    // A task group's `next()`, waiting for a child stuck on a continuation of its own.
    #expect(says("waits at", "waitForGroup()", line: StuckAwaits.nextAwait), "\(description)")
    #expect(says("waits at", "park()", line: StuckAwaits.parkAwait), "\(description)")
    #expect(says("called from", "waitForGroup()", line: StuckAwaits.childAwait), "\(description)")
    // An `AsyncStream` that never gets a value.
    #expect(says("waits at", "iterate(_:)", line: StuckAwaits.iterateAwait), "\(description)")
    // Another task's value.
    #expect(says("waits at", "waitForValue(of:)", line: StuckAwaits.valueAwait), "\(description)")
    // Who awaits whose value: the waiter awaits the worker's, the body the waiter's.
    let valueWaits = lines.filter { $0.hasPrefix("    waits for the value of task ") }
    #expect(valueWaits.count == 2, "\(description)")
    // The body, waiting for that task, and no line for the task that finished: six tasks wait.
    #expect(lines.count { $0.hasPrefix("    waits at ") } == 6, "\(description)")
    // Each task's lines follow its own line, innermost first, a few at most.
    #expect(lines.count { $0.hasPrefix("    ") } <= 6 * 6)
  }

  /// Where stacks cannot be read (other platforms, `LOCKSTEP_NO_TASK_LAYOUT=1`), one line says so.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: SuspendedTaskStacks.unavailability != nil))
  func withoutTheLayoutTheReportSaysWhyItShowsNoStacks() async throws {
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        let parked = Task { await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in } }
        await parked.value
      }
    }
    let description = deadlock?.description ?? ""
    let reason = SuspendedTaskStacks.unavailability ?? ""
    #expect(description.contains("(Where each task waits is not shown: \(reason).)"), "\(description)")
    #expect(!description.contains("waits at"), "\(description)")
  }

  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aTaskWaitingAtALockstepPrimitiveStillSaysWhatItWaitsFor() async throws {
    let gate = Gate("never opened")
    let deadlock = await #expect(throws: DeterministicDeadlock.self) {
      try await withDeterministicScheduling {
        try await gate.wait(timeout: .seconds(3600))
      }
    }
    let description = deadlock?.description ?? ""
    #expect(description.contains("waiting for"), "\(description)")
    #expect(description.contains("Gate(\"never opened\")"), "\(description)")
  }
}

/// An actor whose method suspends on a continuation nobody resumes.
actor StuckMailbox {
  private var waiter: CheckedContinuation<Void, Never>?

  static let receiveAwait = #line + 2
  func receive() async {
    await withCheckedContinuation { continuation in waiter = continuation }
  }
}

/// Functions that wait forever, each at an `await` whose line the test knows.
enum StuckAwaits {
  static let workAwait = #line + 2
  static func work(on mailbox: StuckMailbox) async {
    await mailbox.receive()
  }

  static let nextAwait = #line + 5
  static let childAwait = #line + 3
  static func waitForGroup() async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await park() }
      await group.next()
    }
  }

  /// Keeps the continuations of ``park()`` so that none is dropped unresumed.
  private static let parked = ParkedContinuations()

  static let parkAwait = #line + 2
  static func park() async {
    await withCheckedContinuation { continuation in parked.keep(continuation) }
  }

  static let iterateAwait = #line + 2
  static func iterate(_ stream: AsyncStream<Int>) async {
    for await _ in stream {}
  }

  static let valueAwait = #line + 2
  static func waitForValue(of task: Task<Void, Never>) async {
    await task.value
  }
}

final class ParkedContinuations: Sendable {
  private let continuations = Mutex<[CheckedContinuation<Void, Never>]>([])
  func keep(_ continuation: CheckedContinuation<Void, Never>) {
    continuations.withLock { $0.append(continuation) }
  }
}
