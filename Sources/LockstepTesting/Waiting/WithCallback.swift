/// Calls a completion-handler API and waits, within a bound, for its one callback: the way a test
/// awaits legacy code that reports its result through a closure.
///
/// `start` receives `done`; pass it to the API as (or from inside) its completion handler. The
/// value passed to `done` is returned.
///
/// ```swift
/// @Test(.timeLimit(.minutes(1)))
/// func loadsTheAvatar() async throws {
///   let image = try await withCallback("avatar loaded", timeout: .seconds(1)) { done in
///     loader.load(avatarURL) { image in done(image) }
///   }
///   #expect(image?.size == 512)
/// }
/// ```
///
/// `start` runs on the caller's actor before the wait begins, and may drive the code under test
/// (`await queue.run()`), so the callback may come while `start` still runs.
///
/// - A callback that never comes fails the wait after `timeout` with a ``WaitTimeoutError`` naming
///   `description` and this call's source location.
/// - A callback that comes more than once is a misuse of the API under test: every extra call is
///   reported as a test issue at this call's source location (never a second resume), also when
///   it comes after `withCallback` returned.
/// - A callback that comes after the wait gave up is ignored.
///
/// - Parameters:
///   - description: What the callback means, for failure messages: `"avatar loaded"`.
///   - timeout: A failure bound in real time; a passing test never reaches it.
///   - start: Starts the API call with `done` as its completion.
///   - fileID: The call site's file, captured automatically; failures are reported there.
///   - filePath: The call site's file path, captured automatically.
///   - line: The call site's line, captured automatically.
///   - column: The call site's column, captured automatically.
/// - Returns: The value the callback was called with first.
/// - Throws: ``WaitTimeoutError``, `CancellationError`, or what `start` throws.
nonisolated(nonsending) public func withCallback<Value: Sendable>(
  _ description: String, timeout: Duration = .seconds(10),
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column,
  _ start: nonisolated(nonsending) (_ done: @escaping @Sendable (Value) -> Void) async throws -> Void
) async throws -> Value {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  let state = Locked(CallbackState<Value>())
  let collector = IssueRouting.collector
  let done: @Sendable (Value) -> Void = { value in
    let (waiter, calls) = state.withLock { $0.call(with: value) }
    waiter?.resume()
    guard calls > 1 else { return }
    IssueRouting.$collector.withValue(collector) {
      reportIssue(
        "withCallback(\"\(description)\"): the callback was called \(calls) times; a completion "
          + "handler must be called exactly once.",
        at: site)
    }
  }
  try await start(done)
  try await lockstepWait(
    for: "the callback \"\(description)\"",
    timeout: timeout,
    site: site,
    arrive: { _, waiter in state.withLock { $0.wait(waiter) } },
    depart: { _ in state.withLock { $0.depart() } },
    pending: { ["the callback was never called"] })
  // `lockstepWait` returns only after the first call stored a value; never crash if that changes.
  guard let value = state.withLock({ $0.value }) else { throw CancellationError() }
  return value
}

/// The state behind ``withCallback(_:timeout:fileID:filePath:line:column:_:)``: the first value,
/// how many times the callback came, and the waiting test.
struct CallbackState<Value> {
  private(set) var value: Value?
  private(set) var calls = 0
  private var waiter: Waiter<Void>?

  /// The callback came: the first call keeps its value and hands back the waiter to resume.
  /// Returns the number of calls so far, so that the caller can report extra ones.
  mutating func call(with value: Value) -> (waiter: Waiter<Void>?, calls: Int) {
    calls += 1
    guard calls == 1 else { return (nil, calls) }
    self.value = value
    defer { waiter = nil }
    return (waiter, calls)
  }

  /// The test starts waiting: false when the callback already came.
  mutating func wait(_ waiter: Waiter<Void>) -> Bool {
    guard calls == 0 else { return false }
    self.waiter = waiter
    return true
  }

  /// The wait gave up (timeout or cancellation): takes the waiter, if it is still stored.
  mutating func depart() -> Waiter<Void>? {
    defer { waiter = nil }
    return waiter
  }
}
