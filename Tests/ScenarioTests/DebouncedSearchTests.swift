import Foundation
import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

// Scenario 3, debounced search: a model that waits for 80 ms of quiet after each keystroke, then
// queries a backend. Time is a TestClock, so nothing here sleeps for real.

/// A search backend that records each request with the test clock's time, and answers either at
/// once or, for the queries it holds, when the test opens that query's gate.
///
/// A held request ignores the caller's cancellation, like a network request that was already
/// sent: the wait runs in a task of its own. That is what lets two requests be in flight at once.
final class FakeSearchBackend: SearchBackend {
  struct Request: Equatable, Sendable, CustomStringConvertible {
    let query: String
    let at: Duration
    var description: String { "\"\(query)\" at \(at)" }
  }

  let requests = EventRecorder<Request>("search requests")
  private let clock: TestClock
  private let gates: [String: Gate]

  init(clock: TestClock, holding held: [String] = []) {
    self.clock = clock
    gates = Dictionary(uniqueKeysWithValues: held.map { ($0, Gate("response to \"\($0)\"")) })
  }

  /// Lets the held request for `query` answer.
  func release(_ query: String) {
    gates[query]?.open()
  }

  func search(_ query: String) async throws -> [String] {
    requests.record(Request(query: query, at: clock.now.offset))
    if let gate = gates[query] { try await Task { try await gate.wait() }.value }
    return ["results for \(query)"]
  }
}

/// A task factory that forwards to a `TestTaskFactory` and keeps a way to await each task, so
/// that a test can wait for one particular task to finish.
final class AwaitableTaskFactory: TaskFactory {
  let base = TestTaskFactory()
  private let completions = EventRecorder<@Sendable () async -> Void>("created tasks")

  /// Waits until the `index`-th task created (from 0) has finished.
  func waitForTask(_ index: Int) async throws {
    try await completions.waitForCount(index + 1)
    guard let completion = completions.values.dropFirst(index).first else {
      throw UnexpectedEventError(
        name: "created tasks", expected: "task \(index)", found: "\(completions.values.count) task(s)",
        site: CallSite(), values: [])
    }
    await completion()
  }

  func makeTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    let task = base.makeTask(name: name, priority: priority, site: site, operation: operation)
    completions.record { _ = await task.value }
    return task
  }

  func makeThrowingTask<Success: Sendable>(
    name: String?, priority: TaskPriority?, site: CallSite,
    operation: sending @escaping @isolated(any) () async throws -> Success
  ) -> Task<Success, any Error> {
    let task = base.makeThrowingTask(name: name, priority: priority, site: site, operation: operation)
    completions.record { _ = await task.result }
    return task
  }
}

/// What the five-keystroke scenario observed.
struct KeystrokeOutcome: Equatable, CustomStringConvertible {
  var sleepersAfterTyping: Int
  var requestsAt79ms: [FakeSearchBackend.Request]
  var requestsAt80ms: [FakeSearchBackend.Request]
  var results: [String]

  static let expected = KeystrokeOutcome(
    sleepersAfterTyping: 1, requestsAt79ms: [],
    requestsAt80ms: [.init(query: "swift", at: .milliseconds(80))], results: ["results for swift"])

  var description: String {
    "sleepers \(sleepersAfterTyping), at 79 ms \(requestsAt79ms), at 80 ms \(requestsAt80ms), "
      + "results \(results)"
  }
}

/// Five quick keystrokes; nothing at 79 ms; exactly one request, for the last query, at 80 ms.
@MainActor
func typeFiveKeystrokes(variant: Variant = .correct) async throws -> KeystrokeOutcome {
  let clock = TestClock()
  let tasks = TestTaskFactory()
  let backend = FakeSearchBackend(clock: clock)
  let search = DebouncedSearch(backend: backend, clock: clock, tasks: tasks, variant: variant)

  for text in ["s", "sw", "swi", "swif", "swift"] { search.textChanged(text) }
  try await clock.waitForSleepers(count: 1)  // the last keystroke's search is really sleeping
  let sleepers = clock.sleeperCount

  await clock.advance(by: .milliseconds(79))
  let at79 = backend.requests.values

  await clock.advance(by: .milliseconds(1))
  try await tasks.waitUntilIdle()  // every search task has finished: no request can come later
  return KeystrokeOutcome(
    sleepersAfterTyping: sleepers, requestsAt79ms: at79, requestsAt80ms: backend.requests.values,
    results: search.results)
}

/// Two requests in flight at once ("a", then "ab"), answered in `order` (indexes into the two):
/// returns the results the model ends with.
@MainActor
func answerTwoRequests(inOrder order: [Int], variant: Variant = .correct) async throws -> [String] {
  let clock = TestClock()
  let tasks = AwaitableTaskFactory()
  let queries = ["a", "ab"]
  let backend = FakeSearchBackend(clock: clock, holding: queries)
  let search = DebouncedSearch(backend: backend, clock: clock, tasks: tasks, variant: variant)

  for (index, query) in queries.enumerated() {
    search.textChanged(query)  // cancels the previous search, whose request stays in flight
    try await clock.waitForSleepers(count: 1)
    await clock.advance(by: .milliseconds(80))
    try await backend.requests.waitForCount(index + 1)  // the request has really been sent
  }
  for index in order {
    backend.release(queries[index])
    try await tasks.waitForTask(index)  // its answer has been applied (or dropped)
  }
  try await tasks.base.waitUntilIdle()
  return search.results
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
@MainActor
struct DebouncedSearchTests {
  @Test func fiveKeystrokesSendOneRequestForTheLastQueryAt80ms() async throws {
    let outcome = try await typeFiveKeystrokes()
    #expect(outcome == .expected)
  }

  @Test(arguments: [[0, 1], [1, 0]])
  func theNewestQueryWinsInEveryReleaseOrder(order: [Int]) async throws {
    let results = try await answerTwoRequests(inOrder: order)
    #expect(results == ["results for ab"])
  }

  @Test func withoutTheGenerationCheckTheStaleAnswerWinsEveryTime() async throws {
    for _ in 0..<50 {
      // Answered in request order, the broken model happens to end right…
      #expect(try await answerTwoRequests(inOrder: [0, 1], variant: .broken) == ["results for ab"])
      // …but when the older request answers last, its results overwrite the newer ones.
      #expect(try await answerTwoRequests(inOrder: [1, 0], variant: .broken) == ["results for a"])
    }
  }
}

/// Runs the debounce scenario many times: `LOCKSTEP_DEBOUNCE_REPETITIONS` (default 100).
/// `scripts/repeat-debounce.sh` runs it 10,000 times with both cores busy.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
@MainActor
struct DebounceRepetitionTests {
  @Test func theDebounceScenarioNeverFlakes() async throws {
    let repetitions =
      ProcessInfo.processInfo.environment["LOCKSTEP_DEBOUNCE_REPETITIONS"].flatMap { Int($0) } ?? 100
    var failures: [String] = []
    for repetition in 1...repetitions {
      do {
        let outcome = try await typeFiveKeystrokes()
        if outcome != .expected { failures.append("#\(repetition): \(outcome)") }
        for order in [[0, 1], [1, 0]] {
          let results = try await answerTwoRequests(inOrder: order)
          if results != ["results for ab"] { failures.append("#\(repetition) order \(order): \(results)") }
        }
      } catch {
        failures.append("#\(repetition): \(error)")
      }
    }
    print("debounce repetitions: \(repetitions), failures: \(failures.count)")
    #expect(failures.isEmpty, "\(failures.prefix(5))")
  }
}

final class DebouncedSearchXCTests: XCTestCase {
  @MainActor
  func testFiveKeystrokesSendOneRequestAt80ms() async throws {
    let outcome = try await typeFiveKeystrokes()
    XCTAssertEqual(outcome, .expected)
  }

  @MainActor
  func testTheNewestQueryWinsInBothOrders() async throws {
    for order in [[0, 1], [1, 0]] {
      let results = try await answerTwoRequests(inOrder: order)
      XCTAssertEqual(results, ["results for ab"], "order \(order)")
    }
  }

  @MainActor
  func testTheBrokenModelLetsAStaleAnswerWin() async throws {
    let results = try await answerTwoRequests(inOrder: [1, 0], variant: .broken)
    XCTAssertEqual(results, ["results for a"])
  }
}
