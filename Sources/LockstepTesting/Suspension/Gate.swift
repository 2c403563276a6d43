/// A one-time gate: code under test waits at it until the test opens it.
///
/// ```swift
/// struct GatedValidator: Validator {
///   let gate = Gate("validation")
///   func validate(_ id: Int) async throws { try await gate.wait() }
/// }
///
/// let validator = GatedValidator()
/// async let saved = store.saveIfNeeded(1, validator: validator)
/// try await validator.gate.waitForArrivals(1)   // the save has really reached validation
/// #expect(store.drafts.isEmpty)
/// validator.gate.open()
/// try await saved
/// ```
///
/// The gate opens once and stays open. A waiter that is cancelled, or whose timeout elapses, is
/// removed and throws; it is never resumed twice. See <doc:WhereWorkPauses>.
public final class Gate: Sendable, CustomStringConvertible {
  /// The name used in reports, e.g. `"validation"`.
  public let name: String
  private let state = Locked(GateState<Waiter<Void>>())

  /// Creates a closed gate named `name` for failure messages.
  public init(_ name: String = "gate") {
    self.name = name
  }

  /// Whether the gate has been opened.
  public var isOpen: Bool { state.withLock { $0.isOpen } }

  /// How many waiters are suspended at the gate right now.
  public var waiterCount: Int { state.withLock { $0.waiterCount } }

  /// How many times `wait` has been called so far, whether the caller passed or suspended.
  public var arrivalCount: Int { state.withLock { $0.arrivals } }

  /// `Gate("name") (open|closed, N waiting)`.
  public var description: String {
    let (open, waiting) = state.withLock { ($0.isOpen, $0.waiterCount) }
    return "Gate(\"\(name)\") (\(open ? "open" : "closed"), \(waiting) waiting)"
  }

  /// Waits until the gate is open; returns at once if it already is.
  ///
  /// - Parameters:
  ///   - timeout: A failure bound: when it elapses, the wait throws a
  ///     ``WaitTimeoutError`` naming the gate.
  /// - Throws: ``WaitTimeoutError``, or `CancellationError` if the waiting task is cancelled.
  nonisolated(nonsending) public func wait(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await state.wait(
      for: "Gate(\"\(self.name)\") to open", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      arrive: { $0.arrive($1, $2) },
      depart: { $0.departPasser($1) },
      pending: { ["nobody opened the gate; \($0.waiterCount) waiting"] })
  }

  /// Opens the gate, resuming every waiter in arrival order. Opening an open gate does nothing.
  public func open() {
    let passers = state.withLock { $0.open() }
    for passer in passers { passer.resume() }
  }

  /// Waits until `wait` has been called at least `count` times in total — the way a test knows
  /// the code under test has really reached the gate.
  ///
  /// - Throws: ``WaitTimeoutError`` naming the gate and how many arrived, or `CancellationError`.
  nonisolated(nonsending) public func waitForArrivals(
    _ count: Int = 1, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await state.wait(
      for: "\(count) arrival(s) at Gate(\"\(self.name)\")", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      arrive: { ($0.watchArrivals($1, target: count, $2), []) },
      depart: { $0.departWatcher($1) },
      pending: { ["\($0.arrivals) of \(count) arrived"] })
  }
}
