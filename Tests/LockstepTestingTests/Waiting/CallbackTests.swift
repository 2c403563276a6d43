import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

/// A completion-handler API for the tests: answers from a task, synchronously, twice, or never.
private struct FakeAPI: Sendable {
  enum Behavior { case later, synchronously, twice, never }
  let behavior: Behavior

  func fetch(_ id: Int, completion: @escaping @Sendable (String) -> Void) {
    switch behavior {
    case .later: Task { completion("item \(id)") }
    case .synchronously: completion("item \(id)")
    case .twice:
      completion("item \(id)")
      completion("item \(id) again")
    case .never: break
    }
  }
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CallbackTests {
  @Test func returnsTheValueOfACallbackThatComesLater() async throws {
    let value = try await withCallback("item fetched") { done in
      FakeAPI(behavior: .later).fetch(1, completion: done)
    }
    #expect(value == "item 1")
  }

  @Test func returnsTheValueOfACallbackThatComesBeforeTheWait() async throws {
    let value = try await withCallback("item fetched") { done in
      FakeAPI(behavior: .synchronously).fetch(2, completion: done)
    }
    #expect(value == "item 2")
  }

  @Test func startMayDriveTheCodeUnderTest() async throws {
    let queue = TestQueue()
    let value = try await withCallback("delayed answer") { (done: @escaping @Sendable (Int) -> Void) in
      queue.schedule(after: .seconds(1)) { done(42) }
      await queue.advance(by: .seconds(1))
    }
    #expect(value == 42)
  }

  @Test func aCallbackThatNeverComesTimesOutNamingItAndTheCallSite() async {
    let line: UInt = #line + 1  // inside #expect, the call site is the macro's line
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await withCallback("item fetched", timeout: .milliseconds(20)) { done in
        FakeAPI(behavior: .never).fetch(3, completion: done)
      }
    }
    #expect(error?.awaited == "the callback \"item fetched\"")
    #expect(error?.pending == ["the callback was never called"])
    #expect(error?.site.line == line)
    #expect(error?.site.fileID.description == "LockstepTestingTests/CallbackTests.swift")
  }

  @Test func aSecondCallIsReportedAtTheCallSiteAndNeverResumesTwice() async throws {
    let line: UInt = #line + 2
    let (value, issues) = try await collectingIssues {
      try await withCallback("item fetched") { done in
        FakeAPI(behavior: .twice).fetch(4, completion: done)
      }
    }
    #expect(value == "item 4")
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("withCallback(\"item fetched\")") == true)
    #expect(issues.first?.message.contains("called 2 times") == true)
    #expect(issues.first?.site.line == line)
  }

  @Test func aSecondCallAfterTheWaitReturnedIsReportedToo() async throws {
    let later = Gate("second call")
    let finished = EventCounter("second call made")
    let (_, issues) = try await collectingIssues {
      let value = try await withCallback("item fetched") { (done: @escaping @Sendable (String) -> Void) in
        done("first")
        Task {
          try? await later.wait()
          done("second")
          finished.record()
        }
      }
      #expect(value == "first")
      later.open()
      try await finished.waitForCount(1)
    }
    #expect(issues.count == 1)
  }

  /// A completion handler called from a thread with no task-locals (Dispatch, a detached task)
  /// still reaches the test that called `withCallback`.
  @Test func aSecondCallFromAThreadWithNoTestIsReportedToo() async throws {
    let (_, issues) = try await collectingIssues {
      let value = try await withCallback("item fetched") { (done: @escaping @Sendable (String) -> Void) in
        done("first")
        await Task.detached { done("second") }.value
      }
      #expect(value == "first")
    }
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("called 2 times") == true)
  }

  @Test func aCallbackAfterTheWaitGaveUpIsIgnored() async throws {
    let done = Locked<(@Sendable (Int) -> Void)?>(nil)
    let (_, issues) = await collectingIssues {
      await #expect(throws: WaitTimeoutError.self) {
        try await withCallback("late", timeout: .milliseconds(10)) {
          (callback: @escaping @Sendable (Int) -> Void) in
          done.withLock { $0 = callback }
        }
      }
      done.value?(1)
    }
    #expect(issues.isEmpty)
  }

  @Test func cancellationEndsTheWait() async {
    let started = EventCounter("waiting")
    let waiter = Task {
      try await withCallback("never") { (_: @escaping @Sendable (Int) -> Void) in started.record() }
    }
    try? await started.waitForCount(1)
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
  }
}

final class CallbackXCTests: XCTestCase {
  func testReturnsTheCallbackValue() async throws {
    let value = try await withCallback("item fetched") { done in
      FakeAPI(behavior: .later).fetch(5, completion: done)
    }
    XCTAssertEqual(value, "item 5")
  }

  func testASecondCallIsReported() async throws {
    let (_, issues) = try await collectingIssues {
      try await withCallback("item fetched") { done in
        FakeAPI(behavior: .twice).fetch(6, completion: done)
      }
    }
    XCTAssertEqual(issues.count, 1)
  }
}
