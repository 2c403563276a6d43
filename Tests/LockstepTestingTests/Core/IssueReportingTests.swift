import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct IssueReportingTests {
  @Test func anIssueSaysWhatWentWrongAndWhere() async throws {
    let counter = EventCounter("completion")
    let line: UInt = #line + 1
    let (_, issues) = await collectingIssues { counter.expectCount(1) }
    let issue = try #require(issues.first)
    #expect(issue.site.line == line)
    #expect(issue.site.fileID.description == "LockstepTestingTests/IssueReportingTests.swift")
    #expect(issue.message.contains("expected exactly 1 event(s), got 0"))
    // The description is the message, then the location, so a printed issue says both.
    #expect(issue.description.hasPrefix(issue.message))
    #expect(issue.description.contains("LockstepTestingTests/IssueReportingTests.swift:\(line):"))
  }

  @Test func issuesOfTasksCreatedInsideAreCollectedToo() async {
    let (_, issues) = await collectingIssues {
      await Task { _ = Barrier(parties: 0) }.value
    }
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("at least one party") == true)
  }
}

/// The failures XCTest is told about while capturing, kept instead of failing the test; every
/// other failure — the test's own assertions included — still fails it.
final class CapturedXCTestFailures: Sendable {
  private let state = Locked<(capturing: Bool, failures: [String])>((false, []))

  func startCapturing() { state.withLock { $0.capturing = true } }

  /// Stops capturing and returns what was captured, each as `description @File.swift:line`.
  func stop() -> [String] {
    state.withLock {
      $0.capturing = false
      return $0.failures
    }
  }

  /// Keeps the failure if capturing; returns whether it did.
  func capture(_ description: String, file filePath: String, line: Int) -> Bool {
    state.withLock {
      guard $0.capturing else { return false }
      $0.failures.append("\(description) @\(filePath.split(separator: "/").last ?? ""):\(line)")
      return true
    }
  }
}

/// Proves that Lockstep reports its failures to XCTest when no Swift Testing test is running.
final class IssueReportingXCTests: FailureCapturingTestCase {

  func testAWrongCountIsReportedToXCTestAtTheCallersLine() {
    let completion = EventCounter("completion")
    completion.record()
    completion.record()
    captured.startCapturing()
    let line = #line + 1
    completion.expectCount(1)
    let recorded = captured.stop()
    XCTAssertEqual(recorded.count, 1)
    XCTAssertTrue(recorded.first?.contains("expected exactly 1 event(s), got 2") == true, "\(recorded)")
    XCTAssertTrue(recorded.first?.hasSuffix("@IssueReportingTests.swift:\(line)") == true, "\(recorded)")
  }

  func testABarrierOfZeroPartiesIsReportedToXCTest() {
    captured.startCapturing()
    _ = Barrier(parties: 0)
    let recorded = captured.stop()
    XCTAssertEqual(recorded.count, 1)
    XCTAssertTrue(recorded.first?.contains("at least one party") == true, "\(recorded)")
  }
}
