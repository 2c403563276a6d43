import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

/// A loader whose every request is held until the test completes it.
private struct ControlledBookLoader: BookLoader {
  let calls: ControlledCalls<Int, Book>

  init(cancellation: ControlledCallsCancellation = .ignored) {
    calls = ControlledCalls("loader", cancellation: cancellation)
  }

  func load(id: Int) async throws -> Book { try await calls.call(id) }
}

private struct Offline: Error {}

private func book(_ id: Int) -> Book { Book(id: id, title: "Book \(id)") }

/// What the screen shows once a scenario has run to its end.
private struct Screen: Equatable, CustomStringConvertible {
  var book: Book?
  var hasError: Bool
  var isLoading: Bool

  @MainActor init(_ model: BookScreenModel) {
    book = model.book
    hasError = model.errorMessage != nil
    isLoading = model.isLoading
  }

  init(book: Book?, hasError: Bool = false, isLoading: Bool = false) {
    self.book = book
    self.hasError = hasError
    self.isLoading = isLoading
  }

  var description: String { "book: \(book?.title ?? "none"), error: \(hasError), loading: \(isLoading)" }
}

/// The steps of scenario 2, shared by the Swift Testing and XCTest suites. Each returns what the
/// screen shows at the end. No sleeps: every step waits for exactly the thing it needs.
@MainActor
private enum BookScenario {
  /// Reload 1; wait until the loader has really received request 1; reload 2; complete request 2,
  /// then request 1.
  static func reversedCompletion(_ variant: BookScreenModel.Variant) async throws -> Screen {
    let loader = ControlledBookLoader()
    let model = BookScreenModel(loader: loader, variant: variant)
    let first = Task { await model.reload(id: 1) }
    try await loader.calls.waitUntilPending(1)
    let second = Task { await model.reload(id: 2) }
    try await loader.calls.waitUntilPending(2)
    loader.calls.succeed(2, with: book(2))
    await second.value
    loader.calls.succeed(1, with: book(1))
    await first.value
    return Screen(model)
  }

  /// Book 1 is on screen. A reload of book 2 is cancelled by its caller; the loader ignores the
  /// cancellation and answers anyway, late.
  static func cancelledCallerLateResult(
    _ variant: BookScreenModel.Variant, cancellation: ControlledCallsCancellation = .ignored
  ) async throws -> Screen {
    let loader = ControlledBookLoader(cancellation: cancellation)
    let model = BookScreenModel(loader: loader, variant: variant)
    let initial = Task { await model.reload(id: 1) }
    try await loader.calls.waitUntilPending(1)
    loader.calls.succeed(1, with: book(1))
    await initial.value

    let caller = Task { await model.reload(id: 2) }
    try await loader.calls.waitUntilPending(2)
    caller.cancel()
    loader.calls.succeed(2, with: book(2))  // dropped silently if cancellation already ended it
    await caller.value
    return Screen(model)
  }

  /// Reload 1 and 2 in flight; request 2 succeeds, then the obsolete request 1 fails.
  static func obsoleteFailure(_ variant: BookScreenModel.Variant) async throws -> Screen {
    let loader = ControlledBookLoader()
    let model = BookScreenModel(loader: loader, variant: variant)
    let first = Task { await model.reload(id: 1) }
    try await loader.calls.waitUntilPending(1)
    let second = Task { await model.reload(id: 2) }
    try await loader.calls.waitUntilPending(2)
    loader.calls.succeed(2, with: book(2))
    await second.value
    loader.calls.fail(1, with: Offline())
    await first.value
    return Screen(model)
  }

  /// Three reloads in flight, completed in `order`. Also checks `isLoading` after each step:
  /// it stays true until the newest reload is done.
  static func completion(
    in order: [Int], _ variant: BookScreenModel.Variant
  ) async throws -> (screen: Screen, loadingWhileNewestPending: Bool) {
    let loader = ControlledBookLoader()
    let model = BookScreenModel(loader: loader, variant: variant)
    var reloads: [Int: Task<Void, Never>] = [:]
    for id in 1...3 {
      reloads[id] = Task { await model.reload(id: id) }
      try await loader.calls.waitUntilPending(id)
    }
    var loadingWhileNewestPending = true
    for id in order {
      loader.calls.succeed(id, with: book(id))
      await reloads[id]?.value  // an id of no call: `succeed` above reported it
      if loader.calls.pendingIDs.contains(3) {
        loadingWhileNewestPending = loadingWhileNewestPending && model.isLoading
      }
    }
    return (Screen(model), loadingWhileNewestPending)
  }

  /// The newest reload fails: the error shows and loading ends.
  static func newestFails(_ variant: BookScreenModel.Variant) async throws -> Screen {
    let loader = ControlledBookLoader()
    let model = BookScreenModel(loader: loader, variant: variant)
    let reload = Task { await model.reload(id: 1) }
    try await loader.calls.waitUntilPending(1)
    let loadingMeanwhile = model.isLoading
    loader.calls.fail(1, with: Offline())
    await reload.value
    var screen = Screen(model)
    if !loadingMeanwhile { screen.book = Book(id: -1, title: "isLoading was false while loading") }
    return screen
  }
}

@MainActor
@Suite(.verifyingControlledCalls, .timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct BookScreenTests {
  @Test func anOlderResultArrivingLateIsRejected() async throws {
    #expect(try await BookScenario.reversedCompletion(.correct) == Screen(book: book(2)))
  }

  @Test func withoutTheGenerationCheckTheOlderResultWinsEveryTime() async throws {
    #expect(try await BookScenario.reversedCompletion(.withoutGenerationCheck) == Screen(book: book(1)))
  }

  @Test func aCancelledReloadDoesNotPublishItsLateResult() async throws {
    #expect(try await BookScenario.cancelledCallerLateResult(.correct) == Screen(book: book(1)))
  }

  @Test func withoutTheCancellationCheckTheLateResultIsPublishedEveryTime() async throws {
    let screen = try await BookScenario.cancelledCallerLateResult(.withoutCancellationCheck)
    #expect(screen == Screen(book: book(2)))
  }

  @Test func aLoaderThatHonoursCancellationLeavesTheScreenAsItWas() async throws {
    let screen = try await BookScenario.cancelledCallerLateResult(
      .correct, cancellation: .throwsCancellationError)
    #expect(screen == Screen(book: book(1)))
  }

  @Test func withoutTheCancellationCheckTheCancellationShowsAsAnErrorEveryTime() async throws {
    let screen = try await BookScenario.cancelledCallerLateResult(
      .withoutCancellationCheck, cancellation: .throwsCancellationError)
    #expect(screen == Screen(book: nil, hasError: true))
  }

  @Test func anObsoleteFailureDoesNotEraseNewerContent() async throws {
    #expect(try await BookScenario.obsoleteFailure(.correct) == Screen(book: book(2)))
  }

  @Test func withoutTheGenerationCheckAnObsoleteFailureErasesTheBookEveryTime() async throws {
    #expect(
      try await BookScenario.obsoleteFailure(.withoutGenerationCheck) == Screen(book: nil, hasError: true))
  }

  @Test func theNewestFailureShowsAnErrorAndEndsLoading() async throws {
    #expect(try await BookScenario.newestFails(.correct) == Screen(book: nil, hasError: true))
  }

  @Test(arguments: Interleavings.all(of: [1, 2, 3]))
  func theNewestReloadWinsInEveryCompletionOrder(order: Interleaving<Int>) async throws {
    let (screen, loadingWhilePending) = try await BookScenario.completion(in: order.order, .correct)
    #expect(screen == Screen(book: book(3)))
    #expect(loadingWhilePending)
  }

  @Test(arguments: Interleavings.all(of: [1, 2, 3]))
  func withoutTheGenerationCheckTheLastToFinishWins(order: Interleaving<Int>) async throws {
    let (screen, _) = try await BookScenario.completion(in: order.order, .withoutGenerationCheck)
    let last = try #require(order.order.last)
    #expect(screen == Screen(book: book(last)))
    if order.order.last != 3 {
      #expect(screen != Screen(book: book(3)), "order \(order) must expose the bug")
    }
  }
}

final class BookScreenXCTests: XCTestCase {
  @MainActor func testReversedCompletion() async throws {
    try await withControlledCallsVerification {
      let correct = try await BookScenario.reversedCompletion(.correct)
      XCTAssertEqual(correct, Screen(book: book(2)))
      let broken = try await BookScenario.reversedCompletion(.withoutGenerationCheck)
      XCTAssertEqual(broken, Screen(book: book(1)), "the broken variant must be caught")
    }
  }

  @MainActor func testCancelledCallerWithLateResult() async throws {
    try await withControlledCallsVerification {
      let correct = try await BookScenario.cancelledCallerLateResult(.correct)
      XCTAssertEqual(correct, Screen(book: book(1)))
      let broken = try await BookScenario.cancelledCallerLateResult(.withoutCancellationCheck)
      XCTAssertEqual(broken, Screen(book: book(2)), "the broken variant must be caught")
    }
  }

  @MainActor func testObsoleteFailure() async throws {
    try await withControlledCallsVerification {
      let correct = try await BookScenario.obsoleteFailure(.correct)
      XCTAssertEqual(correct, Screen(book: book(2)))
      let broken = try await BookScenario.obsoleteFailure(.withoutGenerationCheck)
      XCTAssertEqual(broken, Screen(book: nil, hasError: true), "the broken variant must be caught")
    }
  }

  @MainActor func testEveryCompletionOrder() async throws {
    try await withControlledCallsVerification {
      for order in Interleavings.all(of: [1, 2, 3]) {
        let (correct, loading) = try await BookScenario.completion(in: order.order, .correct)
        XCTAssertEqual(correct, Screen(book: book(3)), "order \(order)")
        XCTAssertTrue(loading, "order \(order)")
        let (broken, _) = try await BookScenario.completion(in: order.order, .withoutGenerationCheck)
        let last = try XCTUnwrap(order.order.last)
        XCTAssertEqual(broken, Screen(book: book(last)), "order \(order)")
      }
    }
  }
}
