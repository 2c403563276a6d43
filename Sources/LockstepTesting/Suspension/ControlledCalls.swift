/// What a ``ControlledCalls`` does when the task of a caller waiting in it is cancelled.
public enum ControlledCallsCancellation: Sendable, Equatable {
  /// The call keeps waiting for the test, like a service that does not notice cancellation. The
  /// default: it lets a test prove that a model rejects a late result by itself.
  case ignored
  /// A pending call ends with `CancellationError` as soon as its caller's task is cancelled —
  /// also when the cancellation came before the call arrived. The call is still recorded.
  case throwsCancellationError
}

/// The error that ends a call the test never completed, thrown into the fake's caller by the
/// teardown check (``ControlledCalls/verifyAllCompleted(fileID:filePath:line:column:)``, the
/// ``Testing/Trait/verifyingControlledCalls`` trait, or `addTeardownCheck(for:)`), and by every
/// call that arrives after that check: `loader call #2 (argument: 7) was never completed`.
public struct ControlledCallNotCompletedError: Error, CustomStringConvertible, Sendable {
  /// The name of the ``ControlledCalls`` instance, e.g. `"loader"`.
  public let name: String
  /// The call's id, 1 for the first call.
  public let id: Int
  /// The call's argument, as `String(reflecting:)` prints it.
  public let argument: String

  /// `loader call #2 (argument: 7) was never completed`.
  public var description: String {
    "\(name) call #\(id) (argument: \(argument)) was never completed"
  }
}

/// Holds every call of a fake dependency until the test completes it, so the test decides when
/// and in which order calls finish.
///
/// Put one inside a fake; each call gets an id in arrival order (1, 2, …), records its argument,
/// and suspends until the test calls ``succeed(_:with:fileID:filePath:line:column:)`` or
/// ``fail(_:with:fileID:filePath:line:column:)``:
///
/// ```swift
/// struct FakeLoader: BookLoader {
///   let calls = ControlledCalls<Int, Book>("loader")
///   func load(id: Int) async throws -> Book { try await calls.call(id) }
/// }
///
/// @MainActor @Test(.verifyingControlledCalls, .timeLimit(.minutes(1)))
/// func olderResultIsRejected() async throws {
///   let loader = FakeLoader()
///   let model = BookScreenModel(loader: loader)
///   let first = Task { await model.reload(id: 1) }
///   try await loader.calls.waitUntilPending(1)      // the loader has really received request 1
///   let second = Task { await model.reload(id: 2) }
///   try await loader.calls.waitUntilPending(2)
///   loader.calls.succeed(2, with: Book(id: 2, title: "New"))
///   await second.value
///   loader.calls.succeed(1, with: Book(id: 1, title: "Old"))
///   await first.value
///   #expect(model.book?.title == "New")
///   #expect(!model.isLoading)
/// }
/// ```
///
/// - Every call is resumed exactly once: completing a call that does not exist or already ended
///   is reported as a misuse at your line, never a crash or a double resume.
/// - Cancellation of a caller is ignored by default (see ``ControlledCallsCancellation``).
/// - Calls have no timeout: a call suspends until the test completes or fails it, its caller is
///   cancelled (if the instance honours cancellation), or the teardown check ends it. Use the
///   ``Testing/Trait/verifyingControlledCalls`` trait (Swift Testing), `addTeardownCheck(for:)`
///   (XCTest) or ``verifyAllCompleted(fileID:filePath:line:column:)`` so a forgotten call is
///   reported instead of leaking its continuation.
public final class ControlledCalls<Argument: Sendable, Output: Sendable>: Sendable, CustomStringConvertible {
  /// The name used in every report, e.g. `"loader"`.
  public let name: String
  /// What happens to a pending call when its caller's task is cancelled.
  public let cancellation: ControlledCallsCancellation

  private typealias State = ControlledCallsState<Argument, Output, Waiter<Output>, Waiter<Void>>
  private let state = Locked(State())
  let creationSite: CallSite

  /// Creates an instance with no calls. Inside a test that uses the
  /// ``Testing/Trait/verifyingControlledCalls`` trait (or inside
  /// ``withControlledCallsVerification(isolation:_:)``), it registers itself to be checked when
  /// the test ends; unfinished calls are then reported at the line that created it.
  ///
  /// - Parameters:
  ///   - name: A name for reports: `"loader call #2 (argument: 7) was never completed"`.
  ///   - cancellation: Whether a caller's cancellation ends its pending call.
  public init(
    _ name: String = "controlled", cancellation: ControlledCallsCancellation = .ignored,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    self.name = name
    self.cancellation = cancellation
    self.creationSite = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    registerForTeardown()
  }

  // MARK: The fake's side

  /// Makes a call: records `argument` under the next id and suspends until the test completes
  /// the call. The fake forwards its method to this.
  ///
  /// - Returns: The output the test passed to ``succeed(_:with:fileID:filePath:line:column:)``.
  /// - Throws: The error passed to ``fail(_:with:fileID:filePath:line:column:)`` or
  ///   ``failAll(_:)``; `CancellationError` when the instance honours cancellation;
  ///   ``ControlledCallNotCompletedError`` when the teardown check ended the call.
  nonisolated(nonsending) public func call(_ argument: Argument) async throws -> Output {
    guard cancellation == .throwsCancellationError else {
      let (id, immediate) = register(argument, by: nil)
      if let immediate { return try immediate.get() }
      return try await awaitOutcome(of: id)
    }
    return try await callHonouringCancellation(argument)
  }

  /// A call whose caller's cancellation ends it. The handler is in place before the call is
  /// pending: a test that cancels the caller once it sees the call pending ends the call,
  /// whatever it completes afterwards.
  private func callHonouringCancellation(
    _ argument: Argument, isolation: isolated (any Actor)? = #isolation
  ) async throws -> Output {
    let caller = CancellableCaller()
    let state = self.state
    return try await withTaskCancellationHandler {
      _ = isolation  // keeps the wait on the caller's actor (see `lockstepWait`)
      let (id, immediate) = register(argument, by: caller)
      if let immediate { return try immediate.get() }
      return try await awaitOutcome(of: id, isolation: isolation)
    } onCancel: {
      state.withLock { state in
        caller.isCancelled = true
        return caller.id.flatMap { state.cancel($0) }
      }?.resume(throwing: CancellationError())
    }
  }

  /// Registers a call; a caller cancelled before that ends it at once. Returns its id, and its
  /// outcome when it has ended already.
  private func register(
    _ argument: Argument, by caller: CancellableCaller?
  ) -> (id: Int, immediate: Result<Output, any Error>?) {
    let (id, satisfied, immediate) = state.withLock { state in
      let registered = state.register(argument)
      caller?.id = registered.id
      if caller?.isCancelled == true, registered.immediate == nil {
        _ = state.cancel(registered.id)  // no continuation is attached yet
      }
      return registered
    }
    for watcher in satisfied { watcher.resume() }
    return (id, immediate)
  }

  /// Suspends the caller of call `id` until the test completes it (or its cancellation ends it),
  /// on the caller's actor.
  private func awaitOutcome(
    of id: Int, isolation: isolated (any Actor)? = #isolation
  ) async throws -> Output {
    let state = self.state
    let name = self.name
    return try await withCheckedThrowingContinuation { (waiter: Waiter<Output>) in
      if let outcome = state.withLock({ $0.attach(id, waiter) }) {
        waiter.resume(with: outcome)
      } else {
        // Exploration may cancel the caller here: a fake that honours cancellation ends the
        // call at once (the handler of `callHonouringCancellation`); one that ignores it goes on waiting, as configured.
        _ = CurrentRun.noteWait(for: "call \(id) of \"\(name)\" to complete")
      }
    }
  }

  // MARK: Reading

  /// The arguments of every call so far, in arrival order: call `id` is at index `id - 1`.
  public var arguments: [Argument] { state.withLock { $0.arguments } }

  /// How many calls have arrived so far, completed or not.
  public var callCount: Int { state.withLock { $0.callCount } }

  /// How many calls are suspended, waiting for the test.
  public var pendingCount: Int { state.withLock { $0.pendingCount } }

  /// The ids of the calls waiting for the test, oldest first.
  public var pendingIDs: [Int] { state.withLock { $0.pendingIDs } }

  /// `ControlledCalls("loader") (3 calls, pending: #1, #3)`.
  public var description: String {
    let (count, pending) = state.withLock { ($0.callCount, $0.pendingIDs) }
    let list = pending.isEmpty ? "none" : pending.map { "#\($0)" }.joined(separator: ", ")
    return "ControlledCalls(\"\(name)\") (\(count) calls, pending: \(list))"
  }

  // MARK: Waiting

  /// Waits until call `id` has really arrived — the fake has received it — and returns its
  /// argument. Returns at once if it already has (even if it has been completed since).
  ///
  /// - Parameters:
  ///   - id: The call's id: 1 for the first call.
  ///   - timeout: A failure bound. When it elapses, the wait throws a
  ///     ``WaitTimeoutError`` naming the call and listing the calls that did arrive.
  /// - Returns: The call's argument.
  /// - Throws: ``WaitTimeoutError``, or `CancellationError` if the waiting task is cancelled.
  @discardableResult
  nonisolated(nonsending) public func waitUntilPending(
    _ id: Int, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws -> Argument {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    guard id >= 1 else {
      let message = "\(name): call ids start at 1; waitUntilPending(\(id)) can never be satisfied"
      reportIssue(message, at: site)
      throw ControlledCallsMisuse(message: message)
    }
    // Fast path: a call that has already arrived needs no suspension.
    if let argument = state.withLock({ $0.argument(of: id) }) { return argument }
    try await waitForArrivals(
      id, awaited: "\(name) call #\(id) to arrive", timeout: timeout, site: site)
    return state.withLock { $0.argument(of: id)! }
  }

  /// Waits until at least `count` calls have arrived in total.
  ///
  /// - Throws: ``WaitTimeoutError`` listing the calls that did arrive, or `CancellationError`.
  nonisolated(nonsending) public func waitUntilCallCount(
    _ count: Int, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    try await waitForArrivals(
      count, awaited: "\(count) call(s) of \(name)", timeout: timeout, site: site)
  }

  nonisolated(nonsending) private func waitForArrivals(
    _ target: Int, awaited: String, timeout: Duration, site: CallSite
  ) async throws {
    let name = self.name
    try await state.wait(
      for: awaited, timeout: timeout, site: site,
      arrive: { ($0.watch($1, target: target, $2), []) },
      depart: { $0.departWatcher($1) },
      pending: { Self.arrivedDescriptions($0, name: name) })
  }

  private static func arrivedDescriptions(_ state: State, name: String) -> [String] {
    guard !state.calls.isEmpty else { return ["no call of \(name) has arrived"] }
    return state.calls.map { call in
      "arrived: \(name) call #\(call.id) (argument: \(String(reflecting: call.argument))), "
        + (call.ending.map(\.description) ?? "pending")
    }
  }

  // MARK: Completing

  /// Completes call `id` with `output`: the fake's caller resumes and returns it.
  ///
  /// Completing a call that has not arrived or has already ended is reported as a misuse at your
  /// line. A call that its caller's cancellation already ended (with
  /// ``ControlledCallsCancellation/throwsCancellationError``) accepts the late result silently
  /// and drops it, as a real service's late answer would be dropped.
  public func succeed(
    _ id: Int, with output: Output,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    complete(
      id, with: .success(output), at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    )
  }

  /// Fails call `id` with `error`: the fake's caller resumes and throws it.
  ///
  /// Failing a call that has not arrived or has already ended is reported as a misuse at your
  /// line. A call that its caller's cancellation already ended accepts the late error silently.
  public func fail(
    _ id: Int, with error: any Error,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    complete(
      id, with: .failure(error), at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Completes the oldest pending call with `output`.
  ///
  /// - Returns: The id of the call it completed, or nil — reported as a misuse — when no call
  ///   was pending.
  @discardableResult
  public func succeedOldest(
    with output: Output,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Int? {
    completeOldest(
      with: .success(output), at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Fails the oldest pending call with `error`.
  ///
  /// - Returns: The id of the call it failed, or nil — reported as a misuse — when no call was
  ///   pending.
  @discardableResult
  public func failOldest(
    with error: any Error,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Int? {
    completeOldest(
      with: .failure(error), at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Fails every pending call with `error`, oldest first, and makes every later call fail with
  /// it at once — for a dependency that is down for the rest of the test.
  public func failAll(_ error: any Error) {
    let waiters = state.withLock { $0.endAll(as: .failed, with: error) }
    for waiter in waiters { waiter.resume(throwing: error) }
  }

  // MARK: Teardown

  /// The teardown check: reports every call the test never completed — by name, id and argument
  /// — at your line, and ends each with ``ControlledCallNotCompletedError`` so that no
  /// continuation leaks. Afterwards the instance is finished: later calls throw that error at
  /// once.
  ///
  /// The ``Testing/Trait/verifyingControlledCalls`` trait and `addTeardownCheck(for:)` run it for
  /// you when the test ends.
  ///
  /// - Returns: Whether every call had been completed.
  @discardableResult
  public func verifyAllCompleted(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Bool {
    verify(at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  func verify(at site: CallSite) -> Bool {
    let name = self.name
    let found = state.withLock { state in
      state.tearDown { call in
        ControlledCallNotCompletedError(
          name: name, id: call.id, argument: String(reflecting: call.argument))
      }
    }
    for (call, _) in found {
      let error = ControlledCallNotCompletedError(
        name: name, id: call.id, argument: String(reflecting: call.argument))
      reportIssue(
        "\(error); the teardown check ended it with ControlledCallNotCompletedError. "
          + "Complete it with succeed(\(call.id), with:) or fail(\(call.id), with:) before the test ends.",
        at: site)
    }
    for case (_, let resume?) in found { resume.waiter.resume(throwing: resume.error) }
    return found.isEmpty
  }

  // MARK: Helpers

  /// `succeed` or `fail`, by `outcome`.
  private func complete(_ id: Int, with outcome: Result<Output, any Error>, at site: CallSite) {
    let (ending, verb) = Self.ending(of: outcome)
    let (found, waiter) = state.withLock { $0.complete(id, as: ending, with: outcome) }
    waiter?.resume(with: outcome)
    report(found, id: id, verb: verb, at: site)
  }

  /// `succeedOldest` or `failOldest`, by `outcome`.
  private func completeOldest(with outcome: Result<Output, any Error>, at site: CallSite) -> Int? {
    let (ending, verb) = Self.ending(of: outcome)
    let decision: (id: Int, waiter: Waiter<Output>?)? = state.withLock { state in
      guard let id = state.oldestPendingID() else { return nil }
      return (id, state.complete(id, as: ending, with: outcome).resume)
    }
    guard let decision else {
      reportIssue("\(name): \(verb)Oldest found no pending call", at: site)
      return nil
    }
    decision.waiter?.resume(with: outcome)
    return decision.id
  }

  /// How completing a call with `outcome` ends it, and the verb that names the completion.
  private static func ending(of outcome: Result<Output, any Error>) -> (CallEnding, verb: String) {
    switch outcome {
    case .success: (.succeeded, "succeed")
    case .failure: (.failed, "fail")
    }
  }

  private func report(_ found: State.Completion, id: Int, verb: String, at site: CallSite) {
    switch found {
    case .completed, .alreadyEnded(.cancelled):
      return
    case .unknown:
      let count = callCount
      reportIssue(
        "\(name): cannot \(verb) call #\(id): no such call has arrived (\(count) call(s) so far). "
          + "Wait for it with waitUntilPending(\(id)) first.",
        at: site)
    case .alreadyEnded(let ending):
      reportIssue("\(name): cannot \(verb) call #\(id): it already ended (\(ending)).", at: site)
    }
  }
}

extension ControlledCalls where Argument == Void {
  /// Makes a call that takes no argument.
  nonisolated(nonsending) public func call() async throws -> Output { try await call(()) }
}

extension ControlledCalls where Output == Void {
  /// Completes call `id`, which returns nothing.
  public func succeed(
    _ id: Int,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    succeed(id, with: (), fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

extension ControlledCalls: TeardownChecked {}

/// Thrown by a wait that can never be satisfied, after the misuse is reported.
struct ControlledCallsMisuse: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// Which call a caller that honours cancellation registered, and whether it was cancelled: read
/// and written only under the state's lock, so that registering and cancelling never cross.
private final class CancellableCaller: @unchecked Sendable {
  var id: Int?
  var isCancelled = false
}
