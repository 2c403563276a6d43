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

@Suite(.timeLimit(.minutes(1)))
struct WaitUntilTests {
  @MainActor @Test func returnsOnceTheConditionHolds() async throws {
    let flag = Flag()
    let tasks = TestTaskFactory()
    tasks.task { flag.isSet = true }
    try await waitUntil("the flag is set") { flag.isSet }
    #expect(flag.isSet)
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

  @Test func returnsAtOnceWhenTheConditionAlreadyHolds() async throws {
    try await waitUntil("true") { true }
  }

  @Test func aConditionThatNeverHoldsNamesItselfAndTheCallSite() async throws {
    let line = #line + 1
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await waitUntil("the cache is warm", timeout: .milliseconds(30)) { false }
    }
    #expect(error?.awaited == "\"the cache is warm\"")
    #expect(error?.site.line == UInt(line))
    #expect(error?.description.contains("Timed out after") == true)
  }

  @Test func theConditionsErrorEndsTheWait() async {
    struct Broken: Error {}
    await #expect(throws: Broken.self) {
      try await waitUntil("never checked twice") { throw Broken() }
    }
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
    } catch {
      XCTAssertTrue("\(error)".contains("\"impossible\""))
    }
  }
}
