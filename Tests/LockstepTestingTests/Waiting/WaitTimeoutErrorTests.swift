import Lockstep
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// A wait of the test's own, bounded the way Lockstep's are: it throws a `WaitTimeoutError`.
private func waitForEntries(
  _ loaded: Int, of total: Int, timeout: Duration,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column
) throws {
  throw WaitTimeoutError(
    awaited: "the cache to warm up", timeout: timeout,
    site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
    pending: ["\(loaded) of \(total) entries loaded", "the index"])
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct WaitTimeoutErrorTests {
  @Test func anErrorOfYourOwnWaitCarriesWhatItWasGiven() {
    let line: UInt = #line + 1  // inside #expect, the call site is the macro's line
    let error = #expect(throws: WaitTimeoutError.self) {
      try waitForEntries(3, of: 5, timeout: .seconds(2))
    }
    #expect(error?.awaited == "the cache to warm up")
    #expect(error?.timeout == .seconds(2))
    #expect(error?.site.line == line)
    #expect(error?.site.fileID.description == "LockstepTestingTests/WaitTimeoutErrorTests.swift")
    #expect(error?.pending == ["3 of 5 entries loaded", "the index"])
  }

  @Test func theDescriptionSaysWhatWhereAndHowLongThenEachPendingItemOnItsOwnLine() throws {
    let site = CallSite()
    let error = WaitTimeoutError(
      awaited: "the cache to warm up", timeout: .seconds(2), site: site,
      pending: ["3 of 5 entries loaded", "the index"])
    let lines = error.description.split(separator: "\n").map(String.init)
    #expect(lines.count == 3, "\(lines)")
    let head = try #require(lines.first)
    #expect(head.contains("the cache to warm up"))
    #expect(head.contains("\(site)"))
    #expect(head.contains("\(Duration.seconds(2).lockstepText)"))
    #expect(lines.dropFirst().first?.hasSuffix("3 of 5 entries loaded") == true)
    #expect(lines.dropFirst().last?.hasSuffix("the index") == true)
  }

  @Test func withNothingPendingTheDescriptionSaysSo() {
    let error = WaitTimeoutError(
      awaited: "the cache to warm up", timeout: .seconds(2), site: CallSite(), pending: [])
    #expect(!error.description.contains("\n"))
    #expect(error.description.contains("the cache to warm up"))
    #expect(error.description.contains("Nothing else was pending"))
  }
}

final class WaitTimeoutErrorXCTests: XCTestCase {
  func testAnErrorOfYourOwnWaitCarriesItsTimeout() {
    XCTAssertThrowsError(try waitForEntries(1, of: 2, timeout: .milliseconds(500))) { error in
      XCTAssertEqual((error as? WaitTimeoutError)?.timeout, .milliseconds(500))
      XCTAssertEqual((error as? WaitTimeoutError)?.pending.first, "1 of 2 entries loaded")
    }
  }
}
