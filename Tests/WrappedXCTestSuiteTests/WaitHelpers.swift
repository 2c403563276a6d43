import XCTest

// A suite's own wait helpers, as every library's test utilities have them: the waits they make
// are parked in a deterministic run wherever they are called from.
extension XCTestCase {
  func waitHelper(timeout: TimeInterval = 1) {
    waitForExpectations(timeout: timeout)
  }

  func waitHelper(for expectations: [XCTestExpectation], timeout: TimeInterval = 1) {
    wait(for: expectations, timeout: timeout)
  }
}

/// A helper outside any test case, as a shared test-support module has it.
func waitWithWaiter(for expectations: [XCTestExpectation], timeout: TimeInterval = 1) -> XCTWaiter.Result {
  XCTWaiter().wait(for: expectations, timeout: timeout)
}

/// Whether Lockstep stands in for Dispatch and run loops in this process (Linux).
func standsInForRunLoops() -> Bool {
  #if os(Linux)
    return true
  #else
    return false
  #endif
}
