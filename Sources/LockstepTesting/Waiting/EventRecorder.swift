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
/// For events without a value use ``EventCounter``. Works in XCTest and Swift Testing alike:
/// failed expectations are reported to whichever framework is running.
public final class EventRecorder<Value: Sendable>: Sendable, CustomStringConvertible {
  /// The name used in failure messages, e.g. `"completion"`.
  ///
  /// ```swift
  /// #expect(EventCounter("completion").name == "completion")
  /// ```
  public let name: String
  private let state = Locked(EventState<Value>())

  /// Creates an empty recorder.
  ///
  /// ```swift
  /// let saves = EventRecorder<String>("saved draft")
  /// ```
  public init(_ name: String) {
    self.name = name
  }

  /// Records one event. Safe to call from any thread or task.
  ///
  /// ```swift
  /// api.fetch { result in responses.record(result) }
  /// ```
  public func record(_ value: Value) {
    let satisfied = state.withLock { state in
      state.values.append(value)
      return state.counts.recorded(count: state.values.count)
    }
    for waiter in satisfied { waiter.resume() }
  }

  /// The values recorded so far, in order.
  ///
  /// ```swift
  /// #expect(prices.values == [10, 11, 12])
  /// ```
  public var values: [Value] { state.withLock { $0.values } }

  /// How many events were recorded so far.
  ///
  /// ```swift
  /// #expect(completions.count == 1)
  /// ```
  public var count: Int { state.withLock { $0.values.count } }

  /// `name: N event(s)`.
  ///
  /// ```swift
  /// print(prices)   // price feed: 3 event(s)
  /// ```
  public var description: String { "\(name): \(count) event(s)" }

  /// Waits until at least `count` events have been recorded; returns at once if they already
  /// have.
  ///
  /// ```swift
  /// feed.start()
  /// try await prices.waitForCount(3)
  /// ```
  ///
  /// - Throws: ``WaitTimeoutError`` with the expected and actual count, or `CancellationError`.
  nonisolated(nonsending) public func waitForCount(
    _ count: Int, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let state = self.state
    let name = self.name
    try await lockstepWait(
      for: "\(count) event(s) of \"\(name)\"",
      timeout: timeout,
      site: site,
      arrive: { id, waiter in
        state.withLock { state in
          let recorded = state.values.count
          return state.counts.watch(id, target: count, count: recorded, waiter)
        }
      },
      depart: { id in state.withLock { $0.counts.depart(id) } },
      pending: { ["expected \(count), got \(state.withLock { $0.values.count })"] })
  }

  /// Checks that exactly `expected` events were recorded, reporting a failure with the expected
  /// and actual count to the running test framework if not.
  ///
  /// Call it once the work is done (for example after `TestTaskFactory.waitUntilIdle()`), so that
  /// a late extra event is counted too.
  ///
  /// ```swift
  /// api.fetch { _ in completions.record() }
  /// try await tasks.waitUntilIdle()
  /// completions.expectCount(1)     // "completion: expected exactly 1 event(s), got 2"
  /// ```
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
  ///
  /// ```swift
  /// api.load { _ in completion.record() }
  /// ```
  public func record() { record(()) }
}

/// The state behind ``EventRecorder``: the values, and who waits for how many (``EventCounts``).
///
/// Only the values are generic over the recorder's `Value`. Called from a test's module, code
/// generic over `Value` runs unspecialized, looking up the runtime type of every generic type it
/// touches; the recorder calls the waiting part with a concrete waiter type, so that it runs
/// specialized.
struct EventState<Value> {
  var values: [Value] = []
  var counts = EventCounts<Waiter<Void>>()
}

/// The pure state machine of an ``EventRecorder``'s waits: who waits for how many events.
struct EventCounts<Waiter> {
  private var watchers = Watchers<Int, Waiter>()

  /// The recorder now has `count` events; returns the watchers whose target is now reached.
  mutating func recorded(count: Int) -> [Waiter] {
    watchers.takeReached { count >= $0 }
  }

  /// A watcher arrives while the recorder has `count` events; false when the target is already
  /// reached.
  mutating func watch(_ id: WaiterID, target: Int, count: Int, _ waiter: Waiter) -> Bool {
    watchers.watch(id, target: target, waiter) { count >= $0 }
  }

  mutating func depart(_ id: WaiterID) -> Waiter? {
    watchers.remove(id)
  }
}
