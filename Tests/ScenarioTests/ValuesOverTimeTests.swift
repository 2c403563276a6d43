#if canImport(Observation)
  import LockstepExamples
  import LockstepTestSupport
  import LockstepTesting
  import Testing
  import XCTest

  private struct Offline: Error {}

  /// An items service whose every fetch is held until the test completes it.
  private struct ControlledItemsService: ItemsService {
    let calls = ControlledCalls<Void, [String]>("items service")
    func fetchItems() async throws -> [String] { try await calls.call() }
  }

  /// A price source whose every quote is held until the test gives it; nil closes the market.
  private struct ControlledPriceSource: PriceSource {
    let calls = ControlledCalls<Void, Int?>("price source")
    func nextPrice() async throws -> Int? { try await calls.call() }
  }

  /// Scenario 8's load procedure, shared by both frameworks: one load that succeeds, then one that
  /// fails. Returns the recorder of `isLoading` without checking it.
  @MainActor
  private func loadTwice(_ variant: Variant) async throws -> PropertyRecorder<Bool> {
    let service = ControlledItemsService()
    let tasks = TestTaskFactory()
    let model = ItemsModel(service: service, tasks: tasks, variant: variant)
    let isLoading = PropertyRecorder(model, \.isLoading, name: "isLoading")

    model.load()
    try await service.calls.waitUntilPending(1)
    service.calls.succeed(1, with: ["apples", "pears"])
    try await tasks.waitUntilIdle()

    model.load()
    try await service.calls.waitUntilPending(2)
    service.calls.fail(2, with: Offline())
    try await tasks.waitUntilIdle()
    return isLoading
  }

  /// Scenario 8's stream procedure: the source quotes 10, then 10 again, then closes. Checks the
  /// stream step by step; `checkNothingYet` decides whether the test looks for the repeat.
  /// Returns the line that creates the recorder, where its teardown report points.
  @discardableResult
  private func quoteRepeatedPrice(_ variant: Variant, checkNothingYet: Bool) async throws -> UInt {
    let source = ControlledPriceSource()
    let tasks = TestTaskFactory()
    let recorderLine: UInt = #line + 1
    let prices = SequenceRecorder(
      PriceService(source: source, tasks: tasks, variant: variant).prices(), name: "prices")

    try await source.calls.waitUntilPending(1)
    source.calls.succeed(1, with: 10)
    #expect(try await prices.next() == 10)
    try await source.calls.waitUntilPending(2)
    source.calls.succeed(2, with: 10)  // the same quote again
    try await source.calls.waitUntilPending(3)  // the service has handled the repeat
    if checkNothingYet {
      // The broken service sends the repeated quote.
      let (clean, issues) = await collectingIssues { await prices.expectNoEvents() }
      #expect(clean == (variant == .correct))
      if variant == .correct {
        #expect(issues.isEmpty, "\(issues)")
      } else {
        expectOneIssue(issues, containing: "\"prices\": expected no new events", "got 1 value(s): [10]")
      }
      source.calls.succeed(3, with: nil)  // the market closes
      try await prices.expectFinished()
    } else {
      source.calls.succeed(3, with: nil)  // the market closes; the test does not look
    }
    try await tasks.waitUntilIdle()
    return recorderLine
  }

  /// Scenario 8: values over time.
  @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  struct ValuesOverTimeTests {
    @MainActor @Test(arguments: Variant.allCases)
    func theSpinnerGoesOffAfterEveryLoad(variant: Variant) async throws {
      let isLoading = try await loadTwice(variant)
      // The broken model leaves the spinner on after a failed load.
      let (_, issues) = await collectingIssues {
        await isLoading.expectValues([false, true, false, true, false])
      }
      expectIssues(
        issues,
        containing: variant == .correct
          ? []
          : ["isLoading: expected [false, true, false, true, false], recorded [false, true, false, true]"])
    }

    @MainActor @Test(.deterministic(seed: 21), arguments: Variant.allCases)
    func theSpinnerGoesOffAfterEveryLoadInADeterministicRun(variant: Variant) async throws {
      let isLoading = try await loadTwice(variant)
      let history = await isLoading.values
      #expect(
        history == (variant == .correct ? [false, true, false, true, false] : [false, true, false, true]))
    }

    @MainActor @Test func theSpinnerStepByStep() async throws {
      let service = ControlledItemsService()
      let tasks = TestTaskFactory()
      let model = ItemsModel(service: service, tasks: tasks)
      let isLoading = PropertyRecorder(model, \.isLoading, name: "isLoading")
      #expect(try await isLoading.next() == false)
      model.load()
      #expect(try await isLoading.next() == true)
      try await service.calls.waitUntilPending(1)
      await isLoading.expectNoChanges()  // still loading while the service works
      service.calls.succeed(1, with: ["apples"])
      #expect(try await isLoading.next() == false)
      try await tasks.waitUntilIdle()
      #expect(model.items == ["apples"])
    }

    @Test(arguments: Variant.allCases)
    func theStreamSendsEachChangeThenFinishes(variant: Variant) async throws {
      try await quoteRepeatedPrice(variant, checkNothingYet: true)
    }

    @Test(.deterministic(seed: 5), arguments: Variant.allCases)
    func theStreamInADeterministicRun(variant: Variant) async throws {
      try await quoteRepeatedPrice(variant, checkNothingYet: true)
    }

    @Test(arguments: Variant.allCases)
    func anExtraUncheckedEmissionIsReportedAtTheEndOfTheTest(variant: Variant) async throws {
      let (recorderLine, issues) = try await collectingIssues {
        try await withTeardownVerification {
          try await quoteRepeatedPrice(variant, checkNothingYet: false)
        }
      }
      if variant == .correct {
        #expect(issues.isEmpty)
      } else {
        #expect(
          issues.map(\.message) == [
            "\"prices\": 1 value(s) arrived that the test never checked: [10]. Check them with "
              + "next(), or end the recording with cancelAndIgnoreRemaining() if they don't matter."
          ])
        #expect(issues.first?.site.line == recorderLine)  // where quoteRepeatedPrice creates it
      }
    }
  }

  final class ValuesOverTimeXCTests: XCTestCase {
    @MainActor func testTheSpinnerGoesOffAfterAFailedLoad() async throws {
      let isLoading = try await loadTwice(.correct)
      addTeardownCheck(for: isLoading)
      await isLoading.expectValues([false, true, false, true, false])
    }

    @MainActor func testTheBrokenModelIsCaught() async throws {
      let isLoading = try await loadTwice(.broken)
      let (matched, issues) = await collectingIssues {
        await isLoading.expectValues([false, true, false, true, false])
      }
      XCTAssertFalse(matched)
      XCTAssertEqual(
        issues.map(\.message),
        ["isLoading: expected [false, true, false, true, false], recorded [false, true, false, true]"])
    }

    func testTheStreamSendsEachChangeThenFinishes() async throws {
      let source = ControlledPriceSource()
      let prices = SequenceRecorder(PriceService(source: source).prices(), name: "prices")
      addTeardownCheck(for: prices)
      try await source.calls.waitUntilPending(1)
      source.calls.succeed(1, with: 10)
      let first = try await prices.next()
      XCTAssertEqual(first, 10)
      try await source.calls.waitUntilPending(2)
      source.calls.succeed(2, with: 11)
      let second = try await prices.next()
      XCTAssertEqual(second, 11)
      let clean = await prices.expectNoEvents()
      XCTAssertTrue(clean)
      try await source.calls.waitUntilPending(3)
      source.calls.succeed(3, with: nil)
      try await prices.expectFinished()
    }

    func testTheRepeatedQuoteOfTheBrokenServiceIsCaught() async throws {
      let source = ControlledPriceSource()
      let prices = SequenceRecorder(PriceService(source: source, variant: .broken).prices(), name: "prices")
      try await source.calls.waitUntilPending(1)
      source.calls.succeed(1, with: 10)
      try await source.calls.waitUntilPending(2)
      source.calls.succeed(2, with: 10)
      try await source.calls.waitUntilPending(3)
      let first = try await prices.next()
      XCTAssertEqual(first, 10)
      let (clean, issues) = await collectingIssues { await prices.expectNoEvents() }
      XCTAssertFalse(clean)
      let issue = expectOneIssue(issues)
      XCTAssertTrue(issue?.message.hasSuffix("got 1 value(s): [10]") == true, "\(issues)")
      source.calls.succeed(3, with: nil)
      try await prices.expectFinished()
    }

    func testAStreamThatNeverFinishesFailsWithinItsBoundNamingIt() async throws {
      let source = ControlledPriceSource()
      let prices = SequenceRecorder(PriceService(source: source).prices(), name: "prices")
      do {
        try await prices.expectFinished(timeout: .milliseconds(50))
        XCTFail("the stream cannot have finished")
      } catch let error as WaitTimeoutError {
        XCTAssertEqual(error.awaited, "\"prices\" to finish")
        XCTAssertEqual(error.pending, ["\"prices\" has produced no value, and is still open"])
      }
      try await source.calls.waitUntilPending(1)
      source.calls.succeed(1, with: nil)
      try await prices.expectFinished()
    }
  }
#endif
