public import LockstepTesting
import Testing
import XCTest

// Checks of Lockstep's own reports, shared by the test targets, made where the reports are made:
// `collectingIssues` holds them, and these assert on their text. A check that fails says what was
// reported instead, to the running framework, and never traps (nothing is indexed after a count
// check).

/// Fails the running test, Swift Testing's or XCTest's, with `message` at the given place.
public func failRunningTest(
  _ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
) {
  if Test.current != nil {
    Issue.record(
      Comment(rawValue: message),
      sourceLocation: SourceLocation(
        fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
  } else {
    XCTFail(message, file: filePath, line: line)
  }
}

/// Expects as many issues as `expected` texts, the first containing the first text and so on;
/// otherwise fails the running test (Swift Testing's or XCTest's) with what was reported.
///
/// ```swift
/// let (_, issues) = await collectingIssues { counter.expectCount(1); other.expectCount(2) }
/// expectIssues(issues, containing: ["got 0", "got 1"])
/// ```
@discardableResult
public func expectIssues(
  _ issues: [ReportedIssue], containing expected: [String],
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column
) -> Bool {
  let matches =
    issues.count == expected.count
    && zip(issues, expected).allSatisfy { issue, text in issue.message.contains(text) }
  if !matches {
    failRunningTest(
      "expected \(expected.count) issue(s) containing, in order, \(expected); reported:\n"
        + reportedText(issues),
      fileID: fileID, filePath: filePath, line: line, column: column)
  }
  return matches
}

/// The one issue of `issues`, when there is exactly one and it contains every one of `texts`;
/// otherwise `nil`, after failing the running test (Swift Testing's or XCTest's) with what was
/// reported.
///
/// ```swift
/// let (_, issues) = await collectingIssues { _ = Barrier(parties: 0) }
/// let issue = expectOneIssue(issues, containing: "at least one party")
/// ```
@discardableResult
public func expectOneIssue(
  _ issues: [ReportedIssue], containing texts: String...,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column
) -> ReportedIssue? {
  oneIssue(issues, texts, fileID: fileID, filePath: filePath, line: line, column: column)
}

/// Runs `body`, collecting Lockstep's reports, and expects exactly one, containing every one of
/// `texts`; returns what `body` returned.
///
/// ```swift
/// await expectOneIssue(containing: "expected exactly 1 event(s), got 2") { counter.expectCount(1) }
/// ```
@discardableResult
public func expectOneIssue<Result>(
  containing texts: String..., isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> Result
) async rethrows -> Result {
  let (result, issues) = try await collectingIssues(body)
  oneIssue(issues, texts, fileID: fileID, filePath: filePath, line: line, column: column)
  return result
}

@discardableResult
private func oneIssue(
  _ issues: [ReportedIssue], _ texts: [String],
  fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
) -> ReportedIssue? {
  // The once-per-process warning about hashing depends on the environment
  // (LOCKSTEP_RANDOM_HASHING=1), not on the test: whichever test explores first gets it.
  let issues = issues.filter {
    !($0.isWarning && $0.message.contains("Hashing is not deterministic in this process"))
  }
  if issues.count == 1, let issue = issues.first, texts.allSatisfy({ issue.message.contains($0) }) {
    return issue
  }
  failRunningTest(
    "expected one issue containing \(texts); reported:\n" + reportedText(issues),
    fileID: fileID, filePath: filePath, line: line, column: column)
  return nil
}

private func reportedText(_ issues: [ReportedIssue]) -> String {
  issues.isEmpty ? "nothing" : issues.map { "- \($0.message)" }.joined(separator: "\n")
}
