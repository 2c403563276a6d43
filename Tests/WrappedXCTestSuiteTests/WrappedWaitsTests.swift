import Dispatch
import Foundation
import LockstepTesting
import XCTest

/// Synchronous XCTests in Swift 5 mode, each body wrapped unchanged in the blocking form: XCTest's
/// waits are parked in the run wherever they are called — in the body, in a helper, through
/// `XCTWaiter` — while main-queue blocks, delayed blocks and tasks of the run go on (virtual time).
final class WrappedWaitsTests: XCTestCase {
  override func setUpWithError() throws {
    try XCTSkipUnless(standsInForRunLoops(), "run loops are not stood in for here")
  }

  /// How the work that fulfils the expectations is queued: every way a legacy suite has.
  private func fulfilLater(_ expectations: [XCTestExpectation]) {
    let queue = DispatchQueue(label: "com.example.callbacks")
    DispatchQueue.main.async { DispatchQueue.main.async { expectations[0].fulfill() } }
    // The delays are the subject, in virtual time.
    DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) { expectations[1].fulfill() }  // virtual
    let third = expectations[2]
    DispatchQueue.global().asyncAfter(deadline: .now()) { queue.async { third.fulfill() } }  // virtual
    Task { @MainActor in expectations[3].fulfill() }
  }

  private func fourExpectations() -> [XCTestExpectation] {
    (0..<4).map { expectation(description: "callback \($0)") }
  }

  func testWaitForExpectationsInAHelperOverSeeds() throws {
    for seed: UInt64 in 1...100 {
      try withDeterministicSchedulingBlocking(seed: seed, timeout: .seconds(30)) {
        fulfilLater(fourExpectations())
        waitHelper()
      }
    }
  }

  func testWaitForInAHelperOverSeeds() throws {
    for seed: UInt64 in 1...100 {
      try withDeterministicSchedulingBlocking(seed: seed, timeout: .seconds(30)) {
        let expectations = fourExpectations()
        fulfilLater(expectations)
        waitHelper(for: expectations)
      }
    }
  }

  func testXCTWaiterInAFunctionOverSeeds() throws {
    for seed: UInt64 in 1...100 {
      let result = try withDeterministicSchedulingBlocking(seed: seed, timeout: .seconds(30)) {
        () -> XCTWaiter.Result in
        let expectations = fourExpectations()
        fulfilLater(expectations)
        return waitWithWaiter(for: expectations)
      }.value
      XCTAssertEqual(result, .completed, "seed \(seed)")
    }
  }

  func testWaitsWrittenInTheBody() throws {
    try withDeterministicSchedulingBlocking(seed: 3) {
      let first = expectation(description: "main queue")
      DispatchQueue.main.async { first.fulfill() }
      waitForExpectations(timeout: 1)
      let second = expectation(description: "global queue")
      DispatchQueue.global().async { second.fulfill() }
      wait(for: [second], timeout: 1)
      let third = expectation(description: "after a delay")
      DispatchQueue.main.asyncAfter(deadline: .now() + 0.5) { third.fulfill() }  // virtual
      XCTAssertEqual(XCTWaiter.wait(for: [third], timeout: 1), .completed)
    }
  }

  /// The wait lasts what the work takes in virtual time: 2 s of `asyncAfter`, no more, and at
  /// once in real time.
  func testAWaitReturnsWhenTheExpectationIsFulfilledInVirtualTime() throws {
    let realStart = DispatchTime.now()
    let waited = try withDeterministicSchedulingBlocking(seed: 1) { () -> TimeInterval in
      let started = Date()
      let answered = expectation(description: "answered")
      DispatchQueue.main.asyncAfter(deadline: .now() + 2) { answered.fulfill() }  // virtual
      waitHelper(timeout: 60)
      return Date().timeIntervalSince(started)
    }.value
    XCTAssertEqual(waited, 2, accuracy: 0.01)
    // A failure bound, not a timing: a real wait would take the 2 s (read outside the run).
    XCTAssertLessThan(Double(DispatchTime.now().uptimeNanoseconds - realStart.uptimeNanoseconds) / 1e9, 1.5)
  }

  /// An expectation fulfilled too late times out in virtual time, as it would without the run.
  func testAWaitTimesOutInVirtualTime() throws {
    let (result, waited) = try withDeterministicSchedulingBlocking(seed: 1) {
      () -> (XCTWaiter.Result, TimeInterval) in
      let started = Date()
      let late = expectation(description: "late")
      DispatchQueue.main.asyncAfter(deadline: .now() + 10) { late.fulfill() }  // virtual
      let result = waitWithWaiter(for: [late], timeout: 1)
      return (result, Date().timeIntervalSince(started))
    }.value
    XCTAssertEqual(result, .timedOut)
    XCTAssertEqual(waited, 1, accuracy: 0.01)
  }

  /// The same seed gives the same steps with waits parked among the run's tasks.
  func testAParkedWaitTakesTheSameStepsForTheSameSeed() throws {
    func steps(seed: UInt64) throws -> [Int?] {
      try withDeterministicSchedulingBlocking(seed: seed) {
        let done = expectation(description: "done")
        Task {
          // Steps of the run the parked wait's end lands among (the subject), not a wait.
          for _ in 0..<10 { await Task.yield() }  // subject
          DispatchQueue.main.async { done.fulfill() }
          for _ in 0..<10 { await Task.yield() }  // subject
        }
        waitHelper()
      }.trace.steps.map(\.task)
    }
    for seed: UInt64 in 1...5 {
      let once = try steps(seed: seed)
      for _ in 0..<3 { XCTAssertEqual(try steps(seed: seed), once, "seed \(seed)") }
    }
  }

  /// A callback on another queue that delivers on the main queue (a promise's state queue, a
  /// completion handler): the main thread, waiting in the run, runs the delivery.
  func testMainQueueBlocksQueuedByCallbacksOnOtherQueues() throws {
    for seed: UInt64 in 1...20 {
      let order = try withDeterministicSchedulingBlocking(seed: seed) { () -> [String] in
        let order = Deliveries()
        let delivered = expectation(description: "delivered")
        delivered.expectedFulfillmentCount = 2
        let state = DispatchQueue(label: "com.example.state", attributes: .concurrent)
        state.async(flags: .barrier) {
          DispatchQueue.main.async {
            XCTAssertTrue(Thread.isMainThread)
            order.append("now")
            delivered.fulfill()
          }
        }
        DispatchQueue.global().async {
          DispatchQueue.main.asyncAfter(deadline: .now() + 1) {  // virtual
            order.append("later")
            delivered.fulfill()
          }
        }
        waitHelper(timeout: 5)
        return order.items
      }.value
      XCTAssertEqual(order, ["now", "later"], "seed \(seed)")
    }
  }

  /// A helper that runs the run loop itself (`RunLoop.run(until:)`) waits in virtual time too.
  func testARunLoopRunByAHelperWaitsInVirtualTime() throws {
    let fired = try withDeterministicSchedulingBlocking(seed: 2) { () -> Bool in
      var fired = false
      DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) { fired = true }  // virtual
      RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.5))
      return fired
    }.value
    XCTAssertTrue(fired)
  }
}

/// What the main queue delivered, in order.
private final class Deliveries: @unchecked Sendable {
  private let lock = NSLock()
  private var delivered: [String] = []

  func append(_ item: String) {
    lock.lock()
    delivered.append(item)
    lock.unlock()
  }

  var items: [String] {
    lock.lock()
    defer { lock.unlock() }
    return delivered
  }
}
