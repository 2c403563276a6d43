/// A one-time gate: code under test waits at it until the test opens it.
///
/// Put a gate inside a fake to hold a call at a suspension point — a validation, a save, a
/// network request — and release it when the test chooses:
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
/// The gate opens once and stays open: a waiter that arrives afterwards passes straight through,
/// and opening it again does nothing. A waiter that is cancelled, or whose timeout elapses, is
/// removed and throws; it is never resumed twice.
public final class Gate: Sendable, CustomStringConvertible {
  /// The name used in reports, e.g. `"validation"`.
  ///
  /// ```swift
  /// #expect(Gate("validation").name == "validation")
  /// ```
  public let name: String
  private let state = Locked(GateState<Waiter<Void>>())

  /// Creates a closed gate.
  ///
  /// ```swift
  /// let gate = Gate("save")
  /// ```
  /// - Parameter name: A name for failure messages.
  public init(_ name: String = "gate") {
    self.name = name
  }

  /// Whether the gate has been opened.
  ///
  /// ```swift
  /// gate.open()
  /// #expect(gate.isOpen)
  /// ```
  public var isOpen: Bool { state.withLock { $0.isOpen } }

  /// How many waiters are suspended at the gate right now.
  ///
  /// ```swift
  /// try await gate.waitForArrivals(2)
  /// #expect(gate.waiterCount == 2)
  /// ```
  public var waiterCount: Int { state.withLock { $0.waiterCount } }

  /// How many times `wait` has been called so far, whether the caller passed or suspended.
  ///
  /// ```swift
  /// #expect(gate.arrivalCount == 0)   // nobody reached the save yet
  /// ```
  public var arrivalCount: Int { state.withLock { $0.arrivals } }

  /// `Gate("name") (open|closed, N waiting)`.
  ///
  /// ```swift
  /// print(gate)   // Gate("validation") (closed, 1 waiting)
  /// ```
  public var description: String {
    let (open, waiting) = state.withLock { ($0.isOpen, $0.waiterCount) }
    return "Gate(\"\(name)\") (\(open ? "open" : "closed"), \(waiting) waiting)"
  }

  /// Waits until the gate is open; returns at once if it already is.
  ///
  /// ```swift
  /// func save(_ draft: Draft) async throws {
  ///   try await gate.wait()
  ///   storage.append(draft)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - timeout: A failure bound: when it elapses, the wait throws a
  ///     ``WaitTimeoutError`` naming the gate.
  ///   - fileID: The caller's file ID, where a timeout is reported; leave the default.
  ///   - filePath: The caller's file path; leave the default.
  ///   - line: The caller's line; leave the default.
  ///   - column: The caller's column; leave the default.
  /// - Throws: ``WaitTimeoutError``, or `CancellationError` if the waiting task is cancelled.
  nonisolated(nonsending) public func wait(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let state = self.state
    let name = self.name
    try await lockstepWait(
      for: "Gate(\"\(name)\") to open",
      timeout: timeout,
      site: site,
      arrive: { id, waiter in
        let (suspends, satisfied) = state.withLock { $0.arrive(id, waiter) }
        for watcher in satisfied { watcher.resume() }
        return suspends
      },
      depart: { id in state.withLock { $0.departPasser(id) } },
      pending: { ["nobody opened the gate; \(state.withLock { $0.waiterCount }) waiting"] })
  }

  /// Opens the gate, resuming every waiter in arrival order. Opening an open gate does nothing.
  ///
  /// ```swift
  /// gate.open()
  /// try await tasks.waitUntilIdle()
  /// ```
  public func open() {
    let passers = state.withLock { $0.open() }
    for passer in passers { passer.resume() }
  }

  /// Waits until `wait` has been called at least `count` times in total — the way a test knows
  /// the code under test has really reached the gate.
  ///
  /// ```swift
  /// model.save()
  /// try await gate.waitForArrivals(1)
  /// #expect(model.isSaving)
  /// ```
  ///
  /// - Throws: ``WaitTimeoutError`` naming the gate and how many arrived, or `CancellationError`.
  nonisolated(nonsending) public func waitForArrivals(
    _ count: Int = 1, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let state = self.state
    let name = self.name
    try await lockstepWait(
      for: "\(count) arrival(s) at Gate(\"\(name)\")",
      timeout: timeout,
      site: site,
      arrive: { id, waiter in
        state.withLock { $0.watchArrivals(id, target: count, waiter) }
      },
      depart: { id in state.withLock { $0.departWatcher(id) } },
      pending: {
        let arrived = state.withLock { $0.arrivals }
        return ["\(arrived) of \(count) arrived"]
      })
  }
}
