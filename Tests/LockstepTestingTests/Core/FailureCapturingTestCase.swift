import XCTest

/// An XCTest case that captures the failures Lockstep reports while ``captured`` is capturing,
/// and lets every other failure — its own assertions' — through.
class FailureCapturingTestCase: XCTestCase {
  let captured = CapturedXCTestFailures()

  #if os(Linux) || os(Windows) || os(Android)
    override func recordFailure(
      withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
      expected: Bool
    ) {
      if captured.capture(description, file: filePath, line: lineNumber) { return }
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  #else
    override func record(_ issue: XCTIssue) {
      let file = issue.sourceCodeContext.location?.fileURL.path ?? ""
      let line = issue.sourceCodeContext.location?.lineNumber ?? 0
      if captured.capture(issue.compactDescription, file: file, line: line) { return }
      super.record(issue)
    }
  #endif
}
