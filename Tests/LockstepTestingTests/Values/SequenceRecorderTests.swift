import LockstepTestSupport
import Testing

@testable import LockstepTesting

private struct FeedError: Error, Equatable {
  let code: Int
}

/// A sequence the test feeds by hand whose iterator ignores cancellation: `next()` waits for the
/// next value sent, cancelled or not (unlike `AsyncStream`, which ends when its consumer is
/// cancelled).
private final class UncancellableFeed: AsyncSequence, Sendable {
  private let state = Locked<(buffer: [Int], waiter: CheckedContinuation<Int, Never>?, handedOut: Int)>(
    ([], nil, 0))

  /// How many values an iterator has taken.
  var handedOut: Int { state.withLock { $0.handedOut } }

  func send(_ value: Int) {
    let waiter: CheckedContinuation<Int, Never>? = state.withLock { state in
      guard let waiter = state.waiter else {
        state.buffer.append(value)
        return nil
      }
      state.waiter = nil
      state.handedOut += 1
      return waiter
    }
    waiter?.resume(returning: value)
  }

  struct AsyncIterator: AsyncIteratorProtocol {
    let feed: UncancellableFeed
    func next() async -> Int? {
      await withCheckedContinuation { continuation in
        let buffered: Int? = feed.state.withLock { state in
          guard !state.buffer.isEmpty else {
            state.waiter = continuation
            return nil
          }
          state.handedOut += 1
          return state.buffer.removeFirst()
        }
        if let buffered { continuation.resume(returning: buffered) }
      }
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(feed: self) }
}

/// A stream the test feeds by hand.
private func makeStream() -> (AsyncStream<Int>, AsyncStream<Int>.Continuation) {
  AsyncStream.makeStream(of: Int.self)
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct SequenceRecorderTests {
  // MARK: Values, completion, failure

  @Test func takesValuesInOrderThenTheEnd() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    feed.yield(10)
    feed.yield(11)
    #expect(try await prices.next() == 10)
    #expect(try await prices.next() == 11)
    feed.yield(12)
    feed.finish()
    #expect(try await prices.next() == 12)
    try await prices.expectFinished()
    #expect(prices.values == [10, 11, 12])
    #expect(prices.verifyAllChecked())
  }

  @Test func waitsForAValueAnotherTaskProducesLater() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    let gate = Gate("producer")
    let producer = Task {
      try await gate.wait()
      feed.yield(7)
      feed.finish()
    }
    try await gate.waitForArrivals(1)
    gate.open()
    #expect(try await prices.next() == 7)
    try await prices.expectFinished()
    try await producer.value
  }

  @Test func returnsTheErrorOfAThrowingStream() async throws {
    let (stream, feed) = AsyncThrowingStream.makeStream(of: Int.self)
    let quotes = SequenceRecorder(stream, name: "quotes")
    feed.yield(1)
    feed.finish(throwing: FeedError(code: 7))
    #expect(try await quotes.next() == 1)
    let error = try await quotes.expectFailure()
    #expect(error as? FeedError == FeedError(code: 7))
    #expect(quotes.verifyAllChecked())
  }

  @Test func recordsAnyAsyncSequence() async throws {
    let numbers = AsyncStream<Int> { continuation in
      for number in 1...3 { continuation.yield(number) }
      continuation.finish()
    }
    let doubled = SequenceRecorder(numbers.map { $0 * 2 }.filter { $0 > 2 }, name: "doubled")
    #expect(try await doubled.next() == 4)
    #expect(try await doubled.next() == 6)
    try await doubled.expectFinished()
  }

  @Test func nextFailsWhenTheSequenceFinishesInstead() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    feed.yield(10)
    feed.finish()
    #expect(try await prices.next() == 10)
    let line: UInt = #line + 1
    let error = await #expect(throws: UnexpectedEventError.self) { try await prices.next() }
    #expect(error?.name == "price feed")
    #expect(error?.expected == "a value")
    #expect(error?.found == "the end (finished)")
    #expect(error?.values == ["10"])
    #expect(error?.site.line == line)
  }

  @Test func expectFinishedFailsOnAValueTheTestDidNotCheck() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    feed.yield(10)
    feed.yield(11)
    feed.finish()
    #expect(try await prices.next() == 10)
    let error = await #expect(throws: UnexpectedEventError.self) { try await prices.expectFinished() }
    #expect(error?.expected == "the end")
    #expect(error?.found == "the value 11")
    // The value counts as checked now; the end is the next event.
    try await prices.expectFinished()
  }

  @Test func expectFailureFailsWhenTheSequenceFinishesNormally() async throws {
    let (stream, feed) = AsyncThrowingStream.makeStream(of: Int.self)
    let quotes = SequenceRecorder(stream, name: "quotes")
    feed.finish()
    let error = await #expect(throws: UnexpectedEventError.self) { try await quotes.expectFailure() }
    #expect(error?.found == "the end (finished)")
  }

  // MARK: Bounds

  @Test func aSequenceThatNeverFinishesFailsWithinItsBoundNamingIt() async throws {
    let (stream, feed) = makeStream()
    let ticker = SequenceRecorder(stream, name: "ticker")
    feed.yield(1)
    #expect(try await ticker.next() == 1)
    let line: UInt = #line + 1  // inside #expect, default arguments see the macro's line
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await ticker.expectFinished(timeout: .milliseconds(50))
    }
    #expect(error?.awaited == "\"ticker\" to finish")
    #expect(error?.pending == ["\"ticker\" produced 1 value(s), 1 checked: [1], and is still open"])
    #expect(error?.site.line == line)
    feed.finish()
  }

  @Test func aValueThatNeverComesFailsWithinItsBoundListingWhatArrived() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    feed.yield(10)
    #expect(try await prices.next() == 10)
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await prices.next(timeout: .milliseconds(20))
    }
    #expect(error?.awaited == "the next value of \"price feed\"")
    #expect(error?.description.contains("produced 1 value(s), 1 checked: [10]") == true)
    feed.finish()
  }

  // MARK: Nothing yet

  @Test func nothingYetHoldsWhenEverythingProducedWasChecked() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    feed.yield(10)
    #expect(try await prices.next() == 10)
    let (clean, issues) = await collectingIssues { await prices.expectNoEvents() }
    #expect(clean)
    #expect(issues.isEmpty)
    feed.finish()
  }

  /// Outside a deterministic run, an element yielded before the check is always seen: the check
  /// waits until the recording task has taken it. Run many times, it must never pass.
  @Test(arguments: 1...50)
  func nothingYetSeesAValueYieldedJustBefore(round: Int) async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    feed.yield(10)
    #expect(try await prices.next() == 10)
    feed.yield(round)
    let (clean, issues) = await collectingIssues { await prices.expectNoEvents() }
    #expect(!clean)
    #expect(
      issues.map(\.message) == [
        "\"price feed\": expected no new events, got 1 value(s): [\(round)]"
      ])
    #expect(issues.first?.site.fileID.description == "LockstepTestingTests/SequenceRecorderTests.swift")
    // The value found counts as checked: nothing is left for teardown.
    #expect(prices.verifyAllChecked())
  }

  @Test func nothingYetReportsAnEndTheTestDidNotAwait() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "price feed")
    feed.finish()
    let (clean, issues) = await collectingIssues { await prices.expectNoEvents() }
    #expect(!clean)
    #expect(issues.first?.message.hasSuffix("got the end (finished)") == true)
  }

  @Test func inADeterministicRunNothingYetWaitsForEveryReadyJob() async throws {
    // A producer that needs several hops before it yields: outside a run this would be a race;
    // inside, the check runs only once no job is ready, so the value is always seen.
    let issues = try await withDeterministicScheduling(seed: 3) {
      let (stream, feed) = makeStream()
      let prices = SequenceRecorder(stream, name: "price feed")
      let relay = Relay()
      Task {
        await relay.pass()
        await relay.pass()
        feed.yield(42)
      }
      let (_, issues) = await collectingIssues { await prices.expectNoEvents() }
      feed.finish()
      return issues.map(\.message)
    }
    #expect(issues.count == 1)
    #expect(issues.first?.hasSuffix("got 1 value(s): [42]") == true)
  }

  @Test func inADeterministicRunNothingYetPassesWhileTheProducerWaits() async throws {
    try await withDeterministicScheduling(seed: 5) {
      let (stream, feed) = makeStream()
      let prices = SequenceRecorder(stream, name: "price feed")
      let gate = Gate("next price")
      let producer = Task {
        try await gate.wait()
        feed.yield(1)
        feed.finish()
      }
      #expect(await prices.expectNoEvents())
      gate.open()
      #expect(try await prices.next() == 1)
      try await prices.expectFinished()
      try await producer.value
    }
  }

  @Test func inADeterministicRunNothingYetDoesNotMoveVirtualTime() async throws {
    let clock = TestClock(advancesAutomatically: true)
    try await withDeterministicScheduling {
      let (stream, feed) = makeStream()
      let prices = SequenceRecorder(stream, name: "prices")
      Task {
        try await clock.sleep(for: .seconds(5))
        feed.yield(5)
        feed.finish()
      }
      #expect(await prices.expectNoEvents())
      #expect(clock.now == .zero)
      #expect(try await prices.next() == 5)  // the run advances the clock to 5 s
      #expect(clock.now == .zero.advanced(by: .seconds(5)))
      try await prices.expectFinished()
    }
  }

  // MARK: Unchecked values

  @Test func uncheckedValuesAreReportedByTheTeardownCheckAtTheCreatingLine() async throws {
    let line: UInt = #line + 4
    let (_, issues) = try await collectingIssues {
      try await withTeardownVerification {
        let (stream, feed) = makeStream()
        let prices = SequenceRecorder(stream, name: "price feed")
        feed.yield(10)
        feed.yield(11)
        feed.yield(12)
        #expect(try await prices.next() == 10)
        try await prices.waitForCount(3)
      }
    }
    #expect(
      issues.map(\.message) == [
        "\"price feed\": 2 value(s) arrived that the test never checked: [11, 12]. Check them with "
          + "next(), or end the recording with cancelAndIgnoreRemaining() if they don't matter."
      ])
    #expect(issues.first?.site.line == line)
  }

  @Test func anUncheckedFailureIsReported() async throws {
    let (_, issues) = try await collectingIssues {
      try await withTeardownVerification {
        let (stream, feed) = AsyncThrowingStream.makeStream(of: Int.self)
        let quotes = SequenceRecorder(stream, name: "quotes")
        feed.finish(throwing: FeedError(code: 3))
        try await quotes.waitForCount(1)  // returns at the end
      }
    }
    #expect(issues.count == 1)
    #expect(issues.first?.message.hasPrefix("\"quotes\" failed with ") == true)
    #expect(issues.first?.message.contains("FeedError(code: 3) and the test never checked it") == true)
  }

  @Test func anUnawaitedNormalEndIsNotReported() async throws {
    let (_, issues) = try await collectingIssues {
      try await withTeardownVerification {
        let (stream, feed) = makeStream()
        let prices = SequenceRecorder(stream, name: "prices")
        feed.yield(1)
        feed.finish()
        let first = try await prices.next()
        #expect(first == 1)
      }
    }
    #expect(issues.isEmpty)
  }

  @Test func uncheckedValuesAreReportedWhenTheRecorderGoesAway() async throws {
    let (_, issues) = try await collectingIssues {
      try await recordTwoAndCheckOne()
    }
    #expect(issues.map(\.message).first?.hasPrefix("\"dropped\": 1 value(s) arrived") == true)
    #expect(issues.first?.message.contains("[2]") == true)
  }

  private func recordTwoAndCheckOne() async throws {
    let (stream, feed) = makeStream()
    let recorder = SequenceRecorder(stream, name: "dropped")
    feed.yield(1)
    feed.yield(2)
    #expect(try await recorder.next() == 1)
    try await recorder.waitForCount(2)
  }

  @Test func theTeardownCheckRunsOnce() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "prices")
    feed.yield(1)
    try await prices.waitForCount(1)
    let (first, issues) = await collectingIssues { prices.verifyAllChecked() }
    let (second, again) = await collectingIssues { prices.verifyAllChecked() }
    #expect(!first && second)
    #expect(issues.count == 1)
    #expect(again.isEmpty)
  }

  // MARK: Cancellation

  @Test func cancelStopsTheSequence() async throws {
    let terminated = EventCounter("onTermination")
    let (stream, feed) = makeStream()
    feed.onTermination = { _ in terminated.record() }
    let ticks = SequenceRecorder(stream, name: "ticks")
    feed.yield(1)
    #expect(try await ticks.next() == 1)
    ticks.cancel()
    try await terminated.waitForCount(1)
    // The stream has ended: a value sent now reaches nobody. (A value that does reach the
    // recording task after `cancel()` is the next test's subject.)
    let sent = feed.yield(2)
    #expect({ if case .terminated = sent { true } else { false } }(), "\(sent)")
    #expect(ticks.verifyAllChecked())
    #expect(ticks.values == [1])
  }

  @Test func aValueHandedToTheRecordingTaskAfterCancelIsNotRecorded() async throws {
    // In a deterministic run, `expectNoEvents` lets the recording task catch up (it waits until
    // no job is ready), so the check below sees whatever the task did with the value.
    try await withDeterministicScheduling { () async throws in
      let feed = UncancellableFeed()
      let ticks = SequenceRecorder(feed, name: "ticks")
      feed.send(1)
      #expect(try await ticks.next() == 1)
      ticks.cancel()
      feed.send(2)  // the feed ignores cancellation: the recording task receives it
      let (clean, issues) = await collectingIssues { await ticks.expectNoEvents() }
      #expect(clean && issues.isEmpty, "\(issues)")
      #expect(ticks.values == [1])
      #expect(feed.handedOut == 2, "the recording task took the value sent after cancel()")
    }
  }

  @Test func valuesBeforeTheCancellationCanStillBeTaken() async throws {
    let (stream, feed) = makeStream()
    let ticks = SequenceRecorder(stream, name: "ticks")
    feed.yield(1)
    feed.yield(2)
    try await ticks.waitForCount(2)
    ticks.cancel()
    #expect(try await ticks.next() == 1)
    #expect(try await ticks.next() == 2)
  }

  @Test func awaitingAfterCancelIsAMisuseReportedAtTheCallersLine() async throws {
    let (stream, _) = makeStream()
    let ticks = SequenceRecorder(stream, name: "ticks")
    let cancelLine: UInt = #line + 1
    ticks.cancel()
    let line: UInt = #line + 2
    let (error, issues) = await collectingIssues {
      await #expect(throws: UnexpectedEventError.self) { try await ticks.next() }
    }
    #expect(issues.count == 1)
    #expect(issues.first?.site.line == line)
    #expect(
      issues.first?.message
        == "\"ticks\": next() waits on a recording that was cancelled at "
        + "LockstepTestingTests/SequenceRecorderTests.swift:\(cancelLine):17; it records nothing "
        + "more. Check its values before cancelling it.")
    #expect(error?.found.hasPrefix("no more events: the recording was cancelled") == true)
  }

  @Test func cancellingWhileAWaitIsPendingEndsTheWaitWithTheMisuse() async throws {
    let messages = try await withDeterministicScheduling {
      let (stream, _) = makeStream()
      let ticks = SequenceRecorder(stream, name: "ticks")
      let waiting = Task {
        await collectingIssues {
          await #expect(throws: UnexpectedEventError.self) { try await ticks.next() }
        }.issues.map(\.message)
      }
      _ = await CurrentRun.awaitQuiescence()  // the waiting task is suspended in next()
      ticks.cancel()
      return await waiting.value
    }
    #expect(messages.count == 1)
    #expect(messages.first?.hasPrefix("\"ticks\": next() waits on a recording that was cancelled") == true)
  }

  @Test func cancelAndIgnoreRemainingReportsNothing() async throws {
    let (stream, feed) = makeStream()
    let ticks = SequenceRecorder(stream, name: "ticks")
    feed.yield(1)
    feed.yield(2)
    try await ticks.waitForCount(2)
    ticks.cancelAndIgnoreRemaining()
    #expect(ticks.verifyAllChecked())
  }

  @Test func aCancelledWaitingTestTaskThrowsCancellationError() async throws {
    let (stream, feed) = makeStream()
    let prices = SequenceRecorder(stream, name: "prices")
    let waiter = Task { try await prices.next() }
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    feed.finish()
  }

  // MARK: The state machine

  @Test func stateMachineCountsCheckedValuesAndTheEnding() {
    var state = RecordingState<Int, String>()
    let watchesFirst = state.watch(WaiterID(rawValue: 1), for: .event(after: 0), "first")
    let watchesTwo = state.watch(WaiterID(rawValue: 2), for: .count(2), "two")
    #expect(watchesFirst && watchesTwo)
    let first = state.receive(1)
    #expect(first.recorded && first.reached == ["first"])
    #expect(state.receive(2).reached == ["two"])
    guard case .value(1) = state.takeNext() else {
      Issue.record("expected the value 1")
      return
    }
    #expect(state.unchecked == [2])
    let ended = state.end(.finished)
    let late = state.receive(3)
    let failed = state.end(.failed(FeedError(code: 1)))  // only the first ending counts
    #expect(ended.isEmpty && !late.recorded && failed.isEmpty)
    let found = state.tearDown()
    let again = state.tearDown()
    #expect(found?.values == [2])
    #expect(found?.failure == nil)
    #expect(again == nil)
  }
}

/// An actor a producer hops through, to make "later" take several jobs.
private actor Relay {
  private var passes = 0
  func pass() { passes += 1 }
}
