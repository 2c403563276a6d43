import Dispatch
import Foundation
import LockstepTesting
import XCTest

/// Wrapped tests that fail, each in a process of its own (``RunsThatLetGoTests`` starts it): a
/// test whose expectation nobody fulfils fails with XCTest's message, a run whose `timeout:` fires
/// lets its thread go, and the test after them runs in the same process.
final class FailingWrappedChildTests: XCTestCase {
  static let variable = "LOCKSTEP_FAILING_CHILD_TESTS"

  override func setUpWithError() throws {
    try XCTSkipUnless(ProcessInfo.processInfo.environment[Self.variable] == "1", "run by RunsThatLetGoTests")
  }

  func test1AnExpectationNobodyFulfils() throws {
    try withDeterministicSchedulingBlocking(seed: 1) {
      _ = expectation(description: "never fulfilled")
      waitHelper(timeout: 1)
    }
  }

  /// Outside work that never ends holds virtual time still, so the expectation's 1 s never passes
  /// in the run; the run's 2 s `timeout:` fires, and the wait then passes its time in real time.
  func test2ARunWhoseTimeoutFiresLetsGo() throws {
    let stuck = DispatchSemaphore(value: 0)
    defer { stuck.signal() }
    try withDeterministicSchedulingBlocking(seed: 1, timeout: .seconds(2)) {
      _ = expectation(description: "never fulfilled either")
      DispatchQueue.global().async { stuck.wait() }
      waitHelper(timeout: 1)
    }
  }

  func test3TheNextTestRuns() throws {
    try withDeterministicSchedulingBlocking(seed: 1) {
      let done = expectation(description: "done")
      DispatchQueue.main.async { done.fulfill() }
      waitHelper()
    }
  }
}

final class RunsThatLetGoTests: XCTestCase {
  func testFailingWrappedTestsFailAndTheNextTestRuns() throws {
    try XCTSkipUnless(standsInForRunLoops(), "run loops are not stood in for here")
    try XCTSkipIf(
      ProcessInfo.processInfo.environment[FailingWrappedChildTests.variable] != nil, "the child process")
    let started = DispatchTime.now()
    let output = try runChild(filter: "WrappedXCTestSuiteTests.FailingWrappedChildTests", bound: 60)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
    let lines = output.split(separator: "\n").map(String.init)
    func line(_ test: String, _ verdict: String) -> String? {
      lines.first { $0.contains("FailingWrappedChildTests.\(test)' \(verdict)") }
    }
    XCTAssertNotNil(line("test1AnExpectationNobodyFulfils", "failed"), output)
    XCTAssertTrue(output.contains("Exceeded timeout of 1.0 seconds"), output)
    XCTAssertNotNil(line("test2ARunWhoseTimeoutFiresLetsGo", "failed"), output)
    XCTAssertTrue(output.contains("waiting for the deterministic run's body to finish"), output)
    XCTAssertNotNil(line("test3TheNextTestRuns", "passed"), output)
    XCTAssertTrue(output.contains("Executed 3 tests, with 3 failures"), output)
    // A failure bound: the run's 2 s (times the sanitizer's scale), then the expectation's 1 s in
    // real time, plus 5 s.
    let scale = ProcessInfo.processInfo.environment["LOCKSTEP_TIMEOUT_SCALE"].flatMap(Double.init) ?? 1
    XCTAssertLessThan(seconds, 2 * scale + 1 + 5, output)
  }

  /// Runs this test executable with `filter` and the child variable set; what it printed.
  private func runChild(filter: String, bound: TimeInterval) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
    process.arguments = [filter]
    var environment = ProcessInfo.processInfo.environment
    environment[FailingWrappedChildTests.variable] = "1"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    let output = Output()
    let reader = DispatchQueue(label: "child output")
    let read = DispatchGroup()
    reader.async(group: read) { output.set(pipe.fileHandleForReading.readDataToEndOfFile()) }
    if ended.wait(timeout: .now() + bound) == .timedOut {
      process.terminate()
      XCTFail("the child process did not end within \(bound) s")
    }
    _ = read.wait(timeout: .now() + 10)
    return String(decoding: output.get(), as: UTF8.self)
  }
}

/// What a child process printed, handed from the thread that read it.
private final class Output: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()

  func set(_ data: Data) {
    lock.lock()
    self.data = data
    lock.unlock()
  }

  func get() -> Data {
    lock.lock()
    defer { lock.unlock() }
    return data
  }
}
