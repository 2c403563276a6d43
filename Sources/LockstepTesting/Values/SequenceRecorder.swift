/// Records every element of an `AsyncSequence` — and how it ends — so a test can check them one by
/// one, with bounded waits, and cannot silently miss one.
///
/// The recorder consumes the sequence in a task of its own, from the moment it is created:
///
/// ```swift
/// @Test(.verifyingTeardown, .timeLimit(.minutes(1)))
/// func theFeedSendsThreePricesAndFinishes() async throws {
///   let prices = SequenceRecorder(feed.prices(), name: "price feed")
///   #expect(try await prices.next() == 10)
///   #expect(try await prices.next() == 11)
///   await prices.expectNoEvents()          // nothing more has arrived yet
///   feed.publish(12)
///   #expect(try await prices.next() == 12)
///   feed.close()
///   try await prices.expectFinished()
/// }
/// ```
///
/// Every wait is bounded, and values the test never checked are reported when the recorder goes
/// away or at teardown; see <doc:ValuesOverTime>.
public final class SequenceRecorder<Element: Sendable>: Sendable, CustomStringConvertible {
  /// The name reports use, e.g. `"price feed"`.
  public let name: String

  typealias State = RecordingState<Element, Waiter<Void>>
  private let state = Locked(State())
  private let task: Task<Void, Never>
  /// Outside a deterministic run: the executor of the recording task, to see it catch up.
  private let catchUp: (any RecordingCatchUp)?
  let creationSite: CallSite

  /// Starts recording `sequence` in a task the recorder owns. Inside a teardown verification
  /// scope it registers itself, and unchecked values are reported at the line that created it.
  ///
  /// - Parameters:
  ///   - sequence: The sequence to record. The recorder iterates it; don't iterate it elsewhere.
  ///   - name: A name for reports; the sequence's type by default.
  public init<Recorded: AsyncSequence & SendableMetatype>(
    _ sequence: sending Recorded, name: String? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) where Recorded.Element == Element {
    let name = name ?? String(describing: Recorded.self)
    self.name = name
    self.creationSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let state = self.state
    let (task, catchUp) = startRecording(named: "recording \"\(name)\"") {
      await record(sequence, into: state)
    }
    self.task = task
    self.catchUp = catchUp
    registerForTeardown()
  }

  deinit {
    _ = verifyAtTeardown()
  }

  // MARK: Reading

  /// Every value recorded so far, in order. Reading them counts as checking them: the teardown
  /// check reports only values that arrive after this, and ``next(timeout:fileID:filePath:line:column:)``
  /// returns the first value after them.
  public var values: [Element] { state.withLock { $0.checkAll() } }

  /// `SequenceRecorder("price feed"): 3 value(s), 2 checked, finished`.
  public var description: String {
    let (count, checked, ending) = state.withLock { ($0.values.count, $0.checkedCount, $0.ending) }
    return "SequenceRecorder(\"\(name)\"): \(count) value(s), \(checked) checked, "
      + (ending?.description ?? "still recording")
  }

  // MARK: Awaiting events

  /// Waits for the next value the test has not checked yet and returns it; returns at once if it
  /// has already arrived.
  ///
  /// - Parameters:
  ///   - timeout: A failure bound, never a delay.
  /// - Throws: ``WaitTimeoutError`` naming the recorder and the values that did arrive;
  ///   ``UnexpectedEventError`` when the sequence finished or failed instead, or the recording was
  ///   cancelled (a misuse, also reported at your line); `CancellationError`.
  nonisolated(nonsending) public func next(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws -> Element {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    while true {
      switch state.withLock({ $0.takeNext() }) {
      case .value(let value):
        return value
      case .ending(let ending):
        throw unexpected(ending, expected: "a value", waiting: "next()", at: site)
      case .none:
        try await waitForEvent(awaited: "the next value of \"\(name)\"", timeout: timeout, site: site)
      }
    }
  }

  /// Waits until the sequence finishes normally; returns at once if it already has.
  ///
  /// The end must be the next event: a value the test has not checked yet comes first and fails
  /// the wait (it then counts as checked).
  ///
  /// - Throws: ``UnexpectedEventError`` when a value or a failure comes first, or the recording
  ///   was cancelled (a misuse, also reported); ``WaitTimeoutError`` when the sequence does not
  ///   finish within `timeout` — it names the recorder and what did arrive; `CancellationError`.
  nonisolated(nonsending) public func expectFinished(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    while true {
      switch state.withLock({ $0.takeNext() }) {
      case .value(let value):
        throw unexpectedValue(value, expected: "the end", at: site)
      case .ending(.finished):
        return
      case .ending(let ending):
        throw unexpected(ending, expected: "the end", waiting: "expectFinished()", at: site)
      case .none:
        try await waitForEvent(awaited: "\"\(name)\" to finish", timeout: timeout, site: site)
      }
    }
  }

  /// Waits until the sequence throws, and returns the error; returns at once if it already has.
  ///
  /// The failure must be the next event: a value the test has not checked yet comes first and
  /// fails the wait.
  ///
  /// - Throws: ``UnexpectedEventError`` when a value or the normal end comes first, or the
  ///   recording was cancelled (a misuse, also reported); ``WaitTimeoutError``;
  ///   `CancellationError`.
  @discardableResult
  nonisolated(nonsending) public func expectFailure(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws -> any Error {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    while true {
      switch state.withLock({ $0.takeNext() }) {
      case .value(let value):
        throw unexpectedValue(value, expected: "a failure", at: site)
      case .ending(.failed(let error)):
        return error
      case .ending(let ending):
        throw unexpected(ending, expected: "a failure", waiting: "expectFailure()", at: site)
      case .none:
        try await waitForEvent(awaited: "\"\(name)\" to fail", timeout: timeout, site: site)
      }
    }
  }

  /// Waits until at least `count` values have been recorded in total, checked or not, or the
  /// recording has ended; returns at once if it already has. Waiting checks nothing.
  ///
  /// - Throws: ``WaitTimeoutError`` naming the recorder and what did arrive; `CancellationError`.
  ///   When the recording ends with fewer values, it returns: check the values.
  nonisolated(nonsending) public func waitForCount(
    _ count: Int, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    try await waitFor(
      .count(count), awaited: "\(count) value(s) of \"\(name)\"", timeout: timeout, site: site)
  }

  // MARK: Nothing more yet

  /// Checks that no event has arrived that the test has not checked: no value, no end, no
  /// failure. A failure is reported at your line and the events found count as checked.
  ///
  /// Inside a deterministic run it first waits until no job of the run is ready; outside one,
  /// until the recording task has recorded every element handed to it (see
  /// <doc:ValuesOverTime#Nothing-more-yet>).
  ///
  /// - Parameters:
  ///   - timeout: A failure bound for the recording task to catch up.
  /// - Returns: Whether nothing new had arrived.
  @discardableResult
  nonisolated(nonsending) public func expectNoEvents(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> Bool {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    await catchUp(timeout: timeout, site: site)
    let found: (values: [Element], ending: RecordingEnding?) = state.withLock { state in
      let values = Array(state.unchecked)
      _ = state.checkAll()
      var ending: RecordingEnding?
      if !state.endingChecked, let end = state.ending {
        if case .cancelled = end {} else { ending = end }
        state.checkEnding()
      }
      return (values, ending)
    }
    var got: [String] = []
    if !found.values.isEmpty {
      got.append("\(found.values.count) value(s): \(describeValues(found.values))")
    }
    if let ending = found.ending { got.append("the end (\(ending.description))") }
    guard !got.isEmpty else { return true }
    reportIssue(
      "\"\(name)\": expected no new events, got " + got.joined(separator: " and "), at: site)
    return false
  }

  // MARK: Ending the recording

  /// Stops recording: the recording task is cancelled and later elements are ignored. Values that
  /// arrived before and were never checked are still reported at teardown; use
  /// ``cancelAndIgnoreRemaining(fileID:filePath:line:column:)`` to drop them.
  ///
  /// Values that arrived before the cancellation can still be taken with ``next(timeout:fileID:filePath:line:column:)``;
  /// waiting for more after that is a misuse, reported at the waiting line.
  public func cancel(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    stop(at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Stops recording, and counts every value recorded so far as checked: nothing is reported at
  /// teardown.
  public func cancelAndIgnoreRemaining(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    stop(at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    state.withLock { state in
      _ = state.checkAll()
      state.checkEnding()
    }
  }

  // MARK: Teardown

  /// The teardown check: reports, at your line, every value that arrived and was never checked,
  /// and a failure the test never looked at; then stops recording. It runs once; the
  /// ``Testing/Trait/verifyingTeardown`` trait, `addTeardownCheck(for:)` and the recorder's
  /// `deinit` run it for you.
  ///
  /// - Returns: Whether everything had been checked (also when the check had already run).
  @discardableResult
  public func verifyAllChecked(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Bool {
    verify(at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  func verify(at site: CallSite) -> Bool {
    guard let found = state.withLock({ $0.tearDown() }) else { return true }
    stop(at: site)
    if !found.values.isEmpty {
      reportIssue(
        "\"\(name)\": \(found.values.count) value(s) arrived that the test never checked: "
          + "\(describeValues(found.values)). Check them with next(), or end the recording with "
          + "cancelAndIgnoreRemaining() if they don't matter.",
        at: site)
    }
    if let failure = found.failure {
      reportIssue(
        "\"\(name)\" failed with \(String(reflecting: failure)) and the test never checked it; "
          + "await it with expectFailure().",
        at: site)
    }
    return found.values.isEmpty && found.failure == nil
  }

  // MARK: Helpers

  private func stop(at site: CallSite) {
    let waiters = state.withLock { $0.end(.cancelled(site)) }
    task.cancel()
    for waiter in waiters { waiter.resume() }
  }

  nonisolated(nonsending) private func waitForEvent(awaited: String, timeout: Duration, site: CallSite)
    async throws
  {
    try await waitFor(nil, awaited: awaited, timeout: timeout, site: site)
  }

  /// Waits for `target`, or for an event after the checked values when it is nil.
  nonisolated(nonsending) private func waitFor(
    _ target: State.Target?, awaited: String, timeout: Duration, site: CallSite
  ) async throws {
    let name = self.name
    try await state.wait(
      for: awaited, timeout: timeout, site: site,
      arrive: { ($0.watch($1, for: target ?? .event(after: $0.checkedCount), $2), []) },
      depart: { $0.depart($1) },
      pending: { [Self.progress(of: $0, name: name)] })
  }

  /// Lets the recording catch up: in a run, until no job is ready; outside, until the recording
  /// task has recorded what it was handed. A recording task that does not catch up is reported.
  nonisolated(nonsending) private func catchUp(timeout: Duration, site: CallSite) async {
    _ = await CurrentRun.awaitQuiescence()
    guard let catchUp, state.withLock({ $0.ending == nil }) else { return }
    do {
      try await catchUp.waitUntilCaughtUp(
        awaited: "the recording task of \"\(name)\" to catch up", timeout: timeout, site: site)
    } catch {
      reportIssue("\(error)", at: site)
    }
  }

  private static func progress(of state: State, name: String) -> String {
    let values = state.values
    let checked = state.checkedCount
    var text =
      values.isEmpty
      ? "\"\(name)\" has produced no value"
      : "\"\(name)\" produced \(values.count) value(s), \(checked) checked: \(describeValues(values))"
    text += state.ending.map { ", then \($0.description)" } ?? ", and is still open"
    return text
  }

  private func unexpectedValue(_ value: Element, expected: String, at site: CallSite)
    -> UnexpectedEventError
  {
    UnexpectedEventError(
      name: name, expected: expected, found: "the value \(String(reflecting: value))", site: site,
      values: state.withLock { $0.values.map { String(reflecting: $0) } })
  }

  private func unexpected(
    _ ending: RecordingEnding, expected: String, waiting: String, at site: CallSite
  ) -> UnexpectedEventError {
    let found: String
    switch ending {
    case .finished: found = "the end (finished)"
    case .failed(let error): found = "a failure (\(String(reflecting: error)))"
    case .cancelled(let cancelled):
      found = "no more events: the recording was cancelled at \(cancelled)"
      reportIssue(
        "\"\(name)\": \(waiting) waits on a recording that was cancelled at \(cancelled); it "
          + "records nothing more. Check its values before cancelling it.",
        at: site)
    }
    return UnexpectedEventError(
      name: name, expected: expected, found: found, site: site,
      values: state.withLock { $0.values.map { String(reflecting: $0) } })
  }
}

extension SequenceRecorder: TeardownChecked {
  /// Lets the recording catch up first, so that a value already produced is seen.
  func prepareForTeardown() async { await catchUp(timeout: .seconds(10), site: creationSite) }
}

/// Consumes `sequence` into `state` until it ends or the recording is stopped.
private func record<Recorded: AsyncSequence>(
  _ sequence: Recorded, into state: Locked<RecordingState<Recorded.Element, Waiter<Void>>>
) async {
  do {
    for try await element in sequence {
      let (recorded, reached) = state.withLock { $0.receive(element) }
      for waiter in reached { waiter.resume() }
      if !recorded { return }
    }
    for waiter in state.withLock({ $0.end(.finished) }) { waiter.resume() }
  } catch {
    for waiter in state.withLock({ $0.end(.failed(error)) }) { waiter.resume() }
  }
}

/// Starts a recording task: inside a deterministic run an ordinary task of the run; outside, on a
/// ``RecordingExecutor`` (where task executors exist), which it also returns.
private func startRecording(
  named name: String, _ operation: sending @escaping () async -> Void
) -> (Task<Void, Never>, (any RecordingCatchUp)?) {
  if !CurrentRun.isActive,
    #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  {
    let executor = RecordingExecutor()
    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
      return (Task(name: name, executorPreference: executor, operation: operation), executor)
    }
    return (Task(executorPreference: executor, operation: operation), executor)
  }
  if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
    return (Task(name: name, operation: operation), nil)
  }
  return (Task(operation: operation), nil)
}
