import Dispatch
import Foundation
import XCTest

/// A legacy suite: synchronous tests, waits through the suite's own helper, work that finishes on
/// the main queue, after delays and behind barriers. `scripts/wrap-xctests.sh` runs it with each
/// body wrapped in a deterministic run.
final class MiniPromiseTests: XCTestCase {
  func testThenDeliversOnTheMainQueue() {
    let delivered = expectation(description: "delivered")
    MiniPromise(value: 3).then { value in
      XCTAssertTrue(Thread.isMainThread)
      XCTAssertEqual(value, 3)
      delivered.fulfill()
    }
    waitForPromises()
  }

  func testMapChainsOnTheMainQueue() {
    let value = wait(for: MiniPromise(value: 2).map { $0 * 10 }.map { $0 + 1 })
    XCTAssertEqual(value, 21)
  }

  func testCompactMapWithAnInferredInput() {
    let value = wait(for: MiniPromise(value: "42").compactMap { Int($0) })
    XCTAssertEqual(value, 42)
  }

  func testAfterResolvesLater() {
    let promise = MiniPromise.after(0.5, "late")
    XCTAssertFalse(promise.isResolved)
    XCTAssertEqual(wait(for: promise, timeout: 2), "late")
  }

  func testCallbacksOnABackgroundQueue() {
    let queue = DispatchQueue(label: "com.example.callbacks")
    let done = expectation(description: "done")
    MiniPromise.after(0.1, 1).then(on: queue) { _ in
      dispatchPrecondition(condition: .onQueue(queue))
      done.fulfill()
    }
    wait(for: [done], timeout: 2)
  }

  func testFulfilledOnceOnly() {
    let promise = MiniPromise<Int>()
    promise.fulfill(1)
    promise.fulfill(2)
    XCTAssertEqual(wait(for: promise), 1)
  }

  func testManyCallbacksInOrder() {
    let promise = MiniPromise<Int>()
    var seen: [Int] = []
    let all = expectation(description: "all")
    all.expectedFulfillmentCount = 5
    for index in 0..<5 {
      promise.then { _ in
        seen.append(index)
        all.fulfill()
      }
    }
    DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) { promise.fulfill(0) }  // subject
    waitForPromises(timeout: 2)
    XCTAssertEqual(seen, [0, 1, 2, 3, 4])
  }

  func testAWaiterSeesATimeoutOfAPromiseNeverResolved() {
    let never = expectation(description: "never")
    MiniPromise<Int>().then { _ in never.fulfill() }
    XCTAssertEqual(XCTWaiter().wait(for: [never], timeout: 0.5), .timedOut)
  }
}

extension XCTestCase {
  /// The suite's own helper: waits for the expectations of the test.
  func waitForPromises(timeout: TimeInterval = 1) {
    waitForExpectations(timeout: timeout)
  }

  /// The suite's own helper: the value of `promise`, waited for.
  func wait<Value>(for promise: MiniPromise<Value>, timeout: TimeInterval = 1) -> Value? {
    let resolved = expectation(description: "promise resolved")
    var result: Value?
    promise.then { value in
      result = value
      resolved.fulfill()
    }
    waitForExpectations(timeout: timeout)
    return result
  }
}
