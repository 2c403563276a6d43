#if canImport(XCTest)
  public import XCTest

  extension XCTestCase {
    /// Checks, when the test ends, that every call of `calls` was completed: each call the test
    /// never completed is reported by name, id and argument — at this line — and ended with
    /// ``ControlledCallNotCompletedError`` so that no continuation leaks.
    ///
    /// ```swift
    /// override func setUp() async throws {
    ///   loader = FakeLoader()
    ///   addTeardownCheck(for: loader.calls)
    /// }
    /// ```
    ///
    /// It runs ``ControlledCalls/verifyAllCompleted(fileID:filePath:line:column:)`` in a
    /// teardown block. To check every instance created in a test instead, wrap the test body in
    /// ``withControlledCallsVerification(isolation:_:)``.
    public func addTeardownCheck<Argument, Output>(
      for calls: ControlledCalls<Argument, Output>,
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) {
      addTeardownBlock {
        calls.verifyAllCompleted(fileID: fileID, filePath: filePath, line: line, column: column)
      }
    }
  }
#endif
