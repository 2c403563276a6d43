import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// A backend that holds each query's request until the test opens that query.
private struct GatedSearchBackend: SearchResultsModel.Backend {
  let gates = KeyedGates<String>("search")

  func search(_ query: String) async throws -> [String] {
    try await gates.wait(for: query)
    return ["\(query) result"]
  }
}

private struct ScenarioFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

@MainActor
private enum SearchScenario {
  /// Types every query in `queries` (each starts a request), waits until all requests are really
  /// in flight, then releases them in `order`, each one finishing before the next is released.
  static func release(
    _ queries: [String], in order: [String], _ variant: Variant
  ) async throws -> [String] {
    let tasks = TestTaskFactory()
    let backend = GatedSearchBackend()
    let model = SearchResultsModel(backend: backend, tasks: tasks, variant: variant)
    var requests: [String: Task<Void, Never>] = [:]
    for query in queries { requests[query] = model.search(query) }
    try await backend.gates.waitForRequests(queries.count)
    guard backend.gates.requestedKeys.sorted() == queries.sorted() else {
      throw ScenarioFailure("requests in flight: \(backend.gates.requestedKeys)")
    }
    for query in order {
      backend.gates.open(query)
      guard let request = requests[query] else { throw ScenarioFailure("no request for \(query)") }
      await request.value
    }
    try await tasks.waitUntilIdle()
    guard model.query == queries.last, !model.isSearching || variant == .broken else {
      throw ScenarioFailure("query \(model.query), searching: \(model.isSearching)")
    }
    return model.results
  }
}

@MainActor
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SearchOrderTests {
  @Test(arguments: Interleavings.all(of: ["sw", "swift"]))
  func theNewestQueryWinsInEveryOrder(order: Interleaving<String>) async throws {
    let results = try await SearchScenario.release(["sw", "swift"], in: order.order, .correct)
    #expect(results == ["swift result"])
  }

  @Test(arguments: Interleavings.all(of: ["sw", "swift"]))
  func withoutTheGenerationCheckTheLastToFinishWins(order: Interleaving<String>) async throws {
    let results = try await SearchScenario.release(["sw", "swift"], in: order.order, .broken)
    let last = try #require(order.order.last)
    #expect(results == ["\(last) result"])
  }

  @Test func withoutTheGenerationCheckExactlyOneOrderFails() async throws {
    var failing: [[String]] = []
    for order in Interleavings.all(of: ["sw", "swift"]) {
      let results = try await SearchScenario.release(["sw", "swift"], in: order.order, .broken)
      if results != ["swift result"] { failing.append(order.order) }
    }
    #expect(failing == [["swift", "sw"]])
  }

  @Test(arguments: Interleavings.all(of: ["s", "sw", "swi", "swif"]))
  func theNewestOfFourQueriesWinsInEveryOrder(order: Interleaving<String>) async throws {
    let results = try await SearchScenario.release(["s", "sw", "swi", "swif"], in: order.order, .correct)
    #expect(results == ["swif result"])
  }
}

final class SearchOrderXCTests: XCTestCase {
  @MainActor func testNewestQueryWinsInEveryOrder() async throws {
    for order in Interleavings.all(of: ["sw", "swift"]) {
      let correct = try await SearchScenario.release(["sw", "swift"], in: order.order, .correct)
      XCTAssertEqual(correct, ["swift result"], "order \(order)")
      let broken = try await SearchScenario.release(["sw", "swift"], in: order.order, .broken)
      let last = try XCTUnwrap(order.order.last)
      XCTAssertEqual(broken, ["\(last) result"], "order \(order)")
    }
  }
}
