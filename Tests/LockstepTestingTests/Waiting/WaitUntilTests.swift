import LockstepTesting
import Testing
import XCTest

@MainActor
final class Flag {
  var isSet = false
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
}

final class WaitUntilXCTests: XCTestCase {
  func testTimeoutIsThrown() async {
    do {
      try await waitUntil("impossible", timeout: .milliseconds(10)) { false }
      XCTFail("expected a timeout")
    } catch {
      XCTAssertTrue("\(error)".contains("\"impossible\""))
    }
  }
}
