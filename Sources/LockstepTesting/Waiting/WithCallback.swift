/// Calls a completion-handler API and waits, within a bound, for its one callback: the way a test
/// awaits legacy code that reports its result through a closure.
///
/// `start` runs on the caller's actor before the wait begins, so the callback may come while it
/// still runs. A callback that comes more than once is reported as a misuse at this call's line
/// (never a second resume); one that comes after the wait gave up is ignored.
///
/// - Parameters:
///   - description: What the callback means, for failure messages: `"avatar loaded"`.
///   - timeout: A failure bound in real time; a passing test never reaches it.
///   - start: Starts the API call with `done` as its completion.
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
  let context = IssueContext.current()
  let done: @Sendable (Value) -> Void = { value in
    let (waiter, calls) = state.withLock { $0.call(with: value) }
    waiter?.resume()
    guard calls > 1 else { return }
    reportIssue(
      "withCallback(\"\(description)\"): the callback was called \(calls) times; a completion "
        + "handler must be called exactly once.",
      at: site, context: context)
  }
  try await start(done)
  try await state.wait(
    for: "the callback \"\(description)\"", timeout: timeout, site: site,
    arrive: { state, _, waiter in (state.wait(waiter), []) },
    depart: { state, _ in state.depart() },
    pending: { _ in ["the callback was never called"] })
  // `wait` returns only after the first call stored a value; never crash if that changes.
  guard let value = state.withLock({ $0.value }) else { throw CancellationError() }
  return value
}
