import Dispatch
import Foundation
import LockstepTesting
import XCTest

/// The examples of *Wrapping an existing XCTest suite*, as the article shows them.
final class WrappingArticleExamples: XCTestCase {
  /// A loader that answers on the main queue after 2 s, as legacy code does.
  struct NameLoader {
    func load(_ completion: @escaping (String) -> Void) {
      DispatchQueue.main.asyncAfter(deadline: .now() + 2) { completion("Ada") }  // virtual in a run
    }
  }

  let loader = NameLoader()

  override func setUpWithError() throws {
    try XCTSkipUnless(standsInForRunLoops(), "run loops are not stood in for here")
  }

  func testLoadsTheNameOnTheMainQueue() throws {
    try withDeterministicSchedulingBlocking(seed: 1) {
      let loaded = expectation(description: "loaded")
      var name: String?
      loader.load { loadedName in  // answers on DispatchQueue.main after 2 s
        name = loadedName
        loaded.fulfill()
      }
      waitForExpectations(timeout: 5)  // 2 virtual seconds, at once
      XCTAssertEqual(name, "Ada")
    }
  }

  func testLoadsTheNameThroughTheHelper() throws {
    try withDeterministicSchedulingBlocking(seed: 1) {
      XCTAssertEqual(value(of: loader.load), "Ada")
    }
  }

  /// The doc comment's example: the wait returns after 2 virtual seconds.
  func testTheBlockingFormsExample() throws {
    let waited = try withDeterministicSchedulingBlocking(seed: 1) { () -> TimeInterval in
      let started = Date()
      let loaded = expectation(description: "loaded")
      loader.load { _ in loaded.fulfill() }
      waitForExpectations(timeout: 5)
      return Date().timeIntervalSince(started)
    }.value
    XCTAssertEqual(waited, 2, accuracy: 0.01)
  }
}

extension XCTestCase {
  /// The value `load` delivers, waited for.
  func value<Value>(of load: (@escaping (Value) -> Void) -> Void, timeout: TimeInterval = 5) -> Value? {
    let delivered = expectation(description: "value delivered")
    var result: Value?
    load { value in
      result = value
      delivered.fulfill()
    }
    waitForExpectations(timeout: timeout)
    return result
  }
}
