#if canImport(Observation)
  import LockstepTestSupport
  import LockstepTesting
  import Observation
  import Testing
  import XCTest

  // MARK: - Values over time (ValuesOverTime.md, scenarios 8 and 9)

  // The app code of the article, in a minimal form.

  /// Where the latest price comes from; nil when the market closes.
  private protocol PriceSource: Sendable {
    func nextPrice() async throws -> Int?
  }

  /// Sends each change of the quoted price; a repeated quote is not a change.
  private struct PriceService: Sendable {
    let source: any PriceSource
    let tasks: any TaskFactory

    func prices() -> AsyncStream<Int> {
      let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
      let reading = tasks.task(name: "read prices") {
        var last: Int?
        while let price = try? await source.nextPrice() {
          if price == last { continue }
          last = price
          continuation.yield(price)
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in reading.cancel() }
      return stream
    }
  }

  /// A price source whose every quote is held until the test gives it.
  private struct ControlledPriceSource: PriceSource {
    let calls = ControlledCalls<Void, Int?>("price source")
    func nextPrice() async throws -> Int? { try await calls.call() }
  }

  private protocol ItemsService: Sendable {
    func fetchItems() async throws -> [String]
  }

  @MainActor @Observable
  private final class ItemsModel {
    private(set) var isLoading = false
    private(set) var items: [String] = []
    @ObservationIgnored private let service: any ItemsService
    @ObservationIgnored private let tasks: any TaskFactory

    init(service: any ItemsService, tasks: any TaskFactory) {
      self.service = service
      self.tasks = tasks
    }

    func load() {
      isLoading = true
      tasks.task(name: "load items") {
        defer { self.isLoading = false }  // also when the fetch fails
        self.items = (try? await self.service.fetchItems()) ?? []
      }
    }
  }

  private struct ControlledItemsService: ItemsService {
    let calls = ControlledCalls<Void, [String]>("items service")
    func fetchItems() async throws -> [String] { try await calls.call() }
  }

  private struct Offline: Error {}

  @Observable
  private final class Switch {
    var isOn = false

    func flick() {  // two changes in one synchronous stretch
      isOn = true
      isOn = false
    }
  }

  /// A throttle: a value, then nothing for `interval`.
  private struct Throttle<Base: AsyncSequence, C: Clock>: AsyncSequence {
    typealias Element = Base.Element
    let base: Base
    let interval: C.Duration
    let clock: C

    struct Iterator: AsyncIteratorProtocol {
      var base: Base.AsyncIterator
      let interval: C.Duration
      let clock: C
      var last: C.Instant?

      mutating func next() async throws -> Element? {
        while let value = try await base.next() {
          let now = clock.now
          if let last, now < last.advanced(by: interval) { continue }
          last = now
          return value
        }
        return nil
      }
    }

    func makeAsyncIterator() -> Iterator {
      Iterator(base: base.makeAsyncIterator(), interval: interval, clock: clock)
    }
  }

  extension AsyncSequence {
    fileprivate func throttled<C: Clock>(for interval: C.Duration, clock: C) -> Throttle<Self, C> {
      Throttle(base: self, interval: interval, clock: clock)
    }
  }

  extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// A debounce that emits the latest value once `interval` has passed without a newer one,
    /// and the waiting value when the base ends. With `cancelsTimers: false` it has the classic
    /// bug: the first timer to fire emits whatever value waits then.
    fileprivate func debounced(
      for interval: Duration, clock: some Clock<Duration>, cancelsTimers: Bool = true
    ) -> AsyncThrowingStream<Element, any Error> {
      let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
      let state = DebounceState<Element>(continuation, cancelsTimers: cancelsTimers)
      let upstream = Task {
        do {
          for try await value in self { await state.receive(value, after: interval, on: clock) }
          await state.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in upstream.cancel() }
      return stream
    }

    /// Every value of this sequence and of `other`, as they arrive, until both end.
    fileprivate func merged<Other: AsyncSequence & Sendable>(
      with other: Other
    ) -> AsyncThrowingStream<Element, any Error> where Other.Element == Element {
      let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
      let driver = Task {
        do {
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for try await value in self { continuation.yield(value) } }
            group.addTask { for try await value in other { continuation.yield(value) } }
            try await group.waitForAll()
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in driver.cancel() }
      return stream
    }
  }

  private actor DebounceState<Element: Sendable> {
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    private let cancelsTimers: Bool
    private var pending: Element?
    private var timer: Task<Void, Never>?

    init(_ continuation: AsyncThrowingStream<Element, any Error>.Continuation, cancelsTimers: Bool) {
      self.continuation = continuation
      self.cancelsTimers = cancelsTimers
    }

    func receive(_ value: Element, after interval: Duration, on clock: some Clock<Duration>) {
      pending = value
      if cancelsTimers { timer?.cancel() }
      timer = Task {
        guard (try? await clock.sleep(for: interval)) != nil, let value = pending else { return }
        pending = nil
        continuation.yield(value)
      }
    }

    func finish() {
      timer?.cancel()
      if let value = pending { continuation.yield(value) }
      continuation.finish()
    }
  }

  @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  struct ValuesOverTimeExamples {
    // MARK: Recording an async sequence

    @Test(.verifyingTeardown) func thePriceStreamSendsEachChangeThenFinishes() async throws {
      let source = ControlledPriceSource()
      let service = PriceService(source: source, tasks: TestTaskFactory())
      let prices = SequenceRecorder(service.prices(), name: "prices")

      try await source.calls.waitUntilPending(1)
      source.calls.succeed(1, with: 10)
      #expect(try await prices.next() == 10)

      try await source.calls.waitUntilPending(2)
      source.calls.succeed(2, with: 10)  // the same quote: not a change
      try await source.calls.waitUntilPending(3)  // the service has handled it
      await prices.expectNoEvents()  // nothing more has arrived

      source.calls.succeed(3, with: nil)  // the market closes
      try await prices.expectFinished()
    }

    @Test func aStreamThatNeverFinishesFailsWithinItsBound() async throws {
      let (stream, feed) = AsyncStream.makeStream(of: Int.self)
      let ticker = SequenceRecorder(stream, name: "ticker")
      let error = await #expect(throws: WaitTimeoutError.self) {
        try await ticker.expectFinished(timeout: .milliseconds(50))
      }
      #expect(error?.description.contains("waiting for \"ticker\" to finish") == true)
      feed.finish()
    }

    @Test func anUncheckedValueIsReported() async throws {
      let (_, issues) = try await collectingIssues {
        try await withTeardownVerification {
          let (stream, feed) = AsyncStream.makeStream(of: Int.self)
          let prices = SequenceRecorder(stream, name: "prices")
          feed.yield(10)
          feed.yield(11)  // an extra emission
          let first = try await prices.next()
          #expect(first == 10)
        }
      }
      #expect(
        issues.first?.message.hasPrefix("\"prices\": 1 value(s) arrived that the test never checked: [11]")
          == true)
    }

    @Test func aFailureIsAwaitedLikeTheEnd() async throws {
      let (stream, feed) = AsyncThrowingStream.makeStream(of: Int.self)
      let quotes = SequenceRecorder(stream, name: "quotes")
      feed.finish(throwing: Offline())
      let error = try await quotes.expectFailure()
      #expect(error is Offline)
    }

    // MARK: Recording an @Observable property

    @MainActor @Test(.verifyingTeardown) func theSpinnerShowsDuringEachLoad() async throws {
      let service = ControlledItemsService()
      let tasks = TestTaskFactory()
      let model = ItemsModel(service: service, tasks: tasks)
      let isLoading = PropertyRecorder(model, \.isLoading, name: "isLoading")

      model.load()
      try await service.calls.waitUntilPending(1)
      service.calls.succeed(1, with: ["apples"])
      try await tasks.waitUntilIdle()

      model.load()
      try await service.calls.waitUntilPending(2)
      service.calls.fail(2, with: Offline())
      try await tasks.waitUntilIdle()

      await isLoading.expectValues([false, true, false, true, false])
    }

    @Test func everyChangeOfOneStretchIsRecorded() async {
      let power = Switch()
      let isOn = PropertyRecorder(power, \.isOn, name: "isOn")
      power.flick()
      #expect(await isOn.values == [false, true, false])
    }

    @MainActor @Test func stepByStep() async throws {
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
    }

    // MARK: Marble diagrams

    @Test func debounceWaitsForAQuietPeriod() async {
      await expectMarbles(from: "a-b----c-|", to: "-----b---(c|)") { input, clock in
        input.debounced(for: .seconds(3), clock: clock)
      }
    }

    @Test func aBrokenDebounceShowsBothDiagrams() async {
      let (matched, issues) = await collectingIssues {
        await expectMarbles(from: "a-b----c-|", to: "-----b---(c|)") { input, clock in
          input.debounced(for: .seconds(3), clock: clock, cancelsTimers: false)
        }
      }
      #expect(!matched)
      #expect(
        issues.map(\.message) == [
          """
          Marble diagrams differ at tick 3 (3 s): expected nothing, got 'b'.
            input:    a-b----c-|
            expected: -----b---(c|)
            actual:   ---b-----(c|)
                         ^
          """
        ])
    }

    @Test func throttleWithValues() async {
      await expectMarbles(
        from: "123456|", to: "1-3-5-|", values: ["1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6]
      ) {
        input, clock in
        input.throttled(for: .seconds(2), clock: clock)
      }
    }

    @Test func twoInputsMerged() async {
      await expectMarbles(from: ["a-c-e|", "-b-d---f|"], to: "abcde--f|") { inputs, _ in
        inputs[0].merged(with: inputs[1])
      }
    }

    @Test func theSameDiagramUnderEveryInterleaving() async {
      let result = await explore(.exhaustive(maxPreemptions: 1)) {
        await expectMarbles(from: "a-b----c-|", to: "-----b---(c|)") { input, clock in
          input.debounced(for: .seconds(3), clock: clock)
        }
      }
      #expect(result.failure == nil)  // every explored schedule of the debounce's tasks matches
      #expect(result.isComplete)
    }

    // MARK: Clocks that check

    @Test func noSleeperIsLeft() async throws {
      let clock = TestClock()
      let tasks = TestTaskFactory()
      tasks.task(name: "retry") { try? await clock.sleep(for: .seconds(30)) }
      try await clock.waitForSleepers(count: 1)
      #expect(clock.sleepers.map(\.taskName) == ["retry"])
      let (_, issues) = await collectingIssues { clock.expectNoSleepers() }
      #expect(
        issues.map(\.message) == [
          "TestClock: 1 sleeper left at 0 s:\n  - until 30 s (in 30 s), in task \"retry\""
        ])
      await clock.run()
      try await tasks.waitUntilIdle()
      clock.expectNoSleepers()
    }

    @Test func aDependencyThatMustNotTouchTime() async {
      let clock = UnimplementedClock("cache clock")
      let (_, issues) = await collectingIssues { try? await clock.sleep(for: .seconds(1)) }
      // `sleep(for:)` reads now first, then sleeps: both are reported.
      expectIssues(
        issues,
        containing: [
          "UnimplementedClock \"cache clock\": the code under test read now",
          "UnimplementedClock \"cache clock\": the code under test slept until 1 s",
        ])
    }

    @Test func advanceRunsOnlyWhatIsDueNow() async {
      let clock = TestClock()
      let queue = TestQueue("main", clock: clock)
      let saved = EventRecorder<String>("saved")
      queue.schedule { saved.record("now") }
      queue.schedule(after: .seconds(1)) { saved.record("later") }
      await clock.advance()
      #expect(saved.values == ["now"])
      #expect(clock.now == .zero)
    }
  }

  final class ValuesOverTimeXCTestExamples: XCTestCase {
    func testPrices() async throws {
      let (stream, feed) = AsyncStream.makeStream(of: Int.self)
      let prices = SequenceRecorder(stream, name: "prices")
      addTeardownCheck(for: prices)
      feed.yield(10)
      feed.finish()
      let first = try await prices.next()
      XCTAssertEqual(first, 10)
      try await prices.expectFinished()
    }
  }
#endif
