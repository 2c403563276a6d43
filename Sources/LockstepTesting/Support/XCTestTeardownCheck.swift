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
    /// teardown block. To check every Lockstep object created in a test instead, wrap the test
    /// body in ``withTeardownVerification(isolation:_:)``.
    public func addTeardownCheck<Argument, Output>(
      for calls: ControlledCalls<Argument, Output>,
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) {
      addTeardownBlock {
        calls.verifyAllCompleted(fileID: fileID, filePath: filePath, line: line, column: column)
      }
    }

    /// Checks, when the test ends, that the test checked every value `recorder` recorded, and
    /// looked at a failure: what it never checked is reported at this line, and the recording
    /// stops.
    ///
    /// It lets the recording catch up with what the sequence already produced, then runs
    /// ``SequenceRecorder/verifyAllChecked(fileID:filePath:line:column:)``, in an async teardown
    /// block; without it, the recorder reports when it goes away.
    public func addTeardownCheck<Element>(
      for recorder: SequenceRecorder<Element>,
      fileID: StaticString = #fileID, filePath: StaticString = #filePath,
      line: UInt = #line, column: UInt = #column
    ) {
      addTeardownBlock { @Sendable () async throws -> Void in
        await recorder.prepareForTeardown()
        recorder.verifyAllChecked(fileID: fileID, filePath: filePath, line: line, column: column)
      }
    }

    #if canImport(Observation)
      /// Checks, when the test ends, that the test checked every value `recorder` recorded: the
      /// values it never checked are reported at this line, and the recording stops.
      ///
      /// It runs ``PropertyRecorder/verifyAllChecked(fileID:filePath:line:column:)`` in an async
      /// teardown block, which first reads the property on the object's isolation.
      @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
      public func addTeardownCheck<Value>(
        for recorder: PropertyRecorder<Value>,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column
      ) {
        addTeardownBlock { @Sendable () async throws -> Void in
          await recorder.verifyAllChecked(fileID: fileID, filePath: filePath, line: line, column: column)
        }
      }
    #endif
  }
#endif
