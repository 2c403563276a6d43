import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

@MainActor
final class Flag {
  var isSet = false
}

/// An actor whose state changes with no signal of its own: `deliver` starts a task that nobody
/// tracks, which reaches the actor some time later.
private actor Inbox {
  private(set) var unread = 0
  private(set) var messages: [String] = []

  nonisolated func deliver(_ message: String) {
    Task { await self.receive(message) }
  }

  private func receive(_ message: String) {
    messages.append(message)
    unread += 1
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WaitUntilTests {
  @MainActor @Test func returnsOnceTheConditionHolds() async throws {
    let flag = Flag()
    let tasks = TestTaskFactory()
    // The task runs on the main actor, like the condition: it can only run while `waitUntil`
    // lets other work run between checks.
    tasks.task { flag.isSet = true }
    try await waitUntil("the flag is set") { flag.isSet }
    #expect(flag.isSet)
    try await tasks.waitUntilIdle()
  }

  @Test(arguments: [2, 200, 210])
  func checksUntilTheConditionHoldsThenStops(holdsAtCheck target: Int) async throws {
    // 2: in the yielding phase; 200: its last check; 210: ten checks into the pausing phase.
    var checks = 0
    // The bound is a minute: the check counts calls, and a starved machine may make 200 slow.
    try await waitUntil("check \(target)", timeout: .seconds(60)) {
      checks += 1
      return checks == target
    }
    #expect(checks == target)
  }

  @MainActor @Test func aSynchronousConditionRunsOnTheCallersActor() async throws {
    let flag = Flag()
    let tasks = TestTaskFactory()
    tasks.task { flag.isSet = true }
    try await waitUntil("the flag is set") {
      MainActor.assertIsolated()  // the shared polling loop keeps the caller's isolation
      return flag.isSet
    }
    try await tasks.waitUntilIdle()
  }

  @Test func aConditionThatAlreadyHoldsReturnsAtOnce() async throws {
    try await withDeterministicScheduling {
      let ran = EventCounter("the other task ran")
      // Ready before the wait: in the run's FIFO order it runs at the wait's first yield, and
      // the condition would then be false. A zero timeout fails any wait that needs more than
      // its first check.
      let other = Task { ran.record() }
      var checks = 0
      try await waitUntil("nothing else has run", timeout: .zero) {
        checks += 1
        return ran.count == 0
      }
      #expect(checks == 1)
      #expect(ran.count == 0)  // it returned without suspending
      await other.value
    }
  }

  @Test func aConditionThatNeverHoldsNamesItselfItsBoundAndTheCallSite() async throws {
    let line = #line + 1
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await waitUntil("the cache is warm", timeout: .milliseconds(30)) { false }
    }
    #expect(error?.awaited == "\"the cache is warm\"")
    #expect(error?.timeout == .milliseconds(30))
    #expect(error?.site.line == UInt(line))
    #expect(error?.site.fileID.description == "LockstepTestingTests/WaitUntilTests.swift")
    #expect(error?.pending.count == 1)
  }

  @Test func theConditionsErrorEndsTheWaitAfterOneCheck() async {
    struct Broken: Error {}
    var checks = 0
    await #expect(throws: Broken.self) {
      try await waitUntil("never checked twice") {
        checks += 1
        throw Broken()
      }
    }
    #expect(checks == 1)
  }

  @Test func aCancelledWaitThrowsCancellation() async {
    let waiter = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await waitUntil("never") { false }
    }
    await #expect(throws: CancellationError.self) { try await waiter.value }
  }

  @Test func anAsyncConditionReadsAnActorsStateThatHasNoSignal() async throws {
    let inbox = Inbox()
    inbox.deliver("hello")
    inbox.deliver("world")
    try await waitUntil("both messages arrived") { await inbox.unread == 2 }
    #expect(await Set(inbox.messages) == ["hello", "world"])
  }

  @MainActor @Test func anAsyncConditionRunsInTheCallersIsolation() async throws {
    let flag = Flag()
    let inbox = Inbox()
    inbox.deliver("hello")
    var checks = 0
    try await waitUntil("the message arrived and the flag is read on the main actor") {
      checks += 1
      MainActor.assertIsolated()
      let unread = await inbox.unread
      return !flag.isSet && unread == 1
    }
    #expect(checks >= 1)
  }

  @Test func anAsyncConditionThatNeverHoldsNamesItselfAndTheCallSite() async throws {
    let inbox = Inbox()
    let line = #line + 1
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await waitUntil("a message nobody sends", timeout: .milliseconds(30)) {
        await inbox.unread == 1
      }
    }
    #expect(error?.awaited == "\"a message nobody sends\"")
    #expect(error?.site.line == UInt(line))
    #expect(error?.pending.first?.hasPrefix("the condition was still false after") == true)
  }

  @Test func anAsyncConditionsErrorEndsTheWait() async {
    struct Broken: Error {}
    let inbox = Inbox()
    await #expect(throws: Broken.self) {
      try await waitUntil("never checked twice") {
        if await inbox.unread == 0 { throw Broken() }
        return true
      }
    }
  }

  @Test(.deterministic(seed: 4)) func anAsyncConditionWaitsForAnActorUnderTheScheduler() async throws {
    let inbox = Inbox()
    inbox.deliver("hello")  // its task runs only once the test lets other work run
    #expect(await inbox.unread == 0)
    try await waitUntil("the message arrived") { await inbox.unread == 1 }
    #expect(await inbox.messages == ["hello"])
  }
}

final class WaitUntilXCTests: XCTestCase {
  func testAnAsyncConditionReadsAnActorsStateThatHasNoSignal() async throws {
    let inbox = Inbox()
    inbox.deliver("hello")
    try await waitUntil("the message arrived") { await inbox.unread == 1 }
    let messages = await inbox.messages
    XCTAssertEqual(messages, ["hello"])
  }

  func testAnAsyncConditionThatNeverHoldsTimesOut() async {
    let inbox = Inbox()
    do {
      try await waitUntil("a message nobody sends", timeout: .milliseconds(10)) {
        await inbox.unread == 1
      }
      XCTFail("expected a timeout")
    } catch let error as WaitTimeoutError {
      XCTAssertEqual(error.awaited, "\"a message nobody sends\"")
    } catch {
      XCTFail("unexpected \(error)")
    }
  }

  func testTimeoutIsThrown() async {
    do {
      try await waitUntil("impossible", timeout: .milliseconds(10)) { false }
      XCTFail("expected a timeout")
    } catch let error as WaitTimeoutError {
      XCTAssertEqual(error.awaited, "\"impossible\"")
      XCTAssertEqual(error.timeout, .milliseconds(10))
    } catch {
      XCTFail("unexpected \(error)")
    }
  }
}
