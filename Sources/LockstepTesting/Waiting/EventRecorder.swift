/// Records events — callback invocations, emitted values — so a test can wait for them and check
/// how many happened, without sleeping.
///
/// ```swift
/// let prices = EventRecorder<Decimal>("price feed")
/// feed.onPrice = { prices.record($0) }
/// feed.start()
/// try await prices.waitForCount(3)          // returns the moment the third value arrives
/// try await tasks.waitUntilIdle()
/// prices.expectCount(3)                     // "price feed: expected 3 events, got 4"
/// #expect(prices.values == [10, 11, 12])
/// ```
///
/// For events without a value use ``EventCounter``. Failed expectations are reported to whichever
/// test framework is running.
public final class EventRecorder<Value: Sendable>: Sendable, CustomStringConvertible {
  /// The name used in failure messages, e.g. `"completion"`.
  public let name: String
  private let state = Locked(EventRecorderState<Value>())

  /// Creates an empty recorder named `name` for failure messages.
  public init(_ name: String) {
    self.name = name
  }

  /// Records one event. Safe to call from any thread or task.
  public func record(_ value: Value) {
    let satisfied = state.withLock { state in
      state.values.append(value)
      return state.counts.recorded(count: state.values.count)
    }
    for waiter in satisfied { waiter.resume() }
  }

  /// The values recorded so far, in order.
  public var values: [Value] { state.withLock { $0.values } }

  /// How many events were recorded so far.
  public var count: Int { state.withLock { $0.values.count } }

  /// `name: N event(s)`.
  public var description: String { "\(name): \(count) event(s)" }

  /// Waits until at least `count` events have been recorded; returns at once if they already
  /// have.
  ///
  /// - Throws: ``WaitTimeoutError`` with the expected and actual count, or `CancellationError`.
  nonisolated(nonsending) public func waitForCount(
    _ count: Int, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await state.wait(
      for: "\(count) event(s) of \"\(self.name)\"", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      arrive: { ($0.counts.watch($1, target: count, count: $0.values.count, $2), []) },
      depart: { $0.counts.depart($1) },
      pending: { ["expected \(count), got \($0.values.count)"] })
  }

  /// Checks that exactly `expected` events were recorded, reporting a failure with the expected
  /// and actual count to the running test framework if not. Call it once the work is done, so
  /// that a late extra event is counted too.
  ///
  /// - Returns: Whether the count matched.
  @discardableResult
  public func expectCount(
    _ expected: Int,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Bool {
    let actual = count
    guard actual != expected else { return true }
    reportIssue(
      "\"\(name)\": expected exactly \(expected) event(s), got \(actual)",
      at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    return false
  }
}

/// Counts events that carry no value, such as "the completion handler was called".
///
/// ```swift
/// let completion = EventCounter("completion")
/// api.load { _ in completion.record() }
/// try await completion.waitForCount(1)
/// completion.expectCount(1)
/// ```
public typealias EventCounter = EventRecorder<Void>

extension EventRecorder where Value == Void {
  /// Records one event.
  public func record() { record(()) }
}
