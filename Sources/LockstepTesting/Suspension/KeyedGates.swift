/// A gate per key — per search query, per record id — that a fake waits at, and that the test
/// opens key by key, in any order.
///
/// ```swift
/// struct GatedBackend: SearchResultsModel.Backend {
///   let gates = KeyedGates<String>("search")
///   func search(_ query: String) async throws -> [String] {
///     try await gates.wait(for: query)
///     return ["\(query) result"]
///   }
/// }
///
/// model.search("sw")
/// model.search("swift")
/// try await backend.gates.waitForRequests(2)     // both requests are in flight
/// #expect(backend.gates.requestedKeys == ["sw", "swift"])
/// backend.gates.open("swift")                    // release the newer one first
/// backend.gates.open("sw")
/// ```
///
/// Each key's gate opens once and stays open, also when it is opened before anyone waits on it.
/// A waiter that is cancelled, or whose timeout elapses, is removed and throws.
public final class KeyedGates<Key: Hashable & Sendable>: Sendable, CustomStringConvertible {
  /// The name used in reports, e.g. `"search"`.
  public let name: String
  private let state = Locked(KeyedGatesState<Key, Waiter<Void>>())

  /// Creates gates that are all closed, named `name` for failure messages.
  public init(_ name: String = "keyed gates") {
    self.name = name
  }

  /// Every key requested so far through ``wait(for:timeout:fileID:filePath:line:column:)``, in
  /// order, repeats included.
  public var requestedKeys: [Key] { state.withLock { $0.requestedKeys } }

  /// Whether `key` has been opened.
  public func isOpen(_ key: Key) -> Bool { state.withLock { $0.isOpen(key) } }

  /// How many requests are suspended, at all keys together.
  public var waiterCount: Int { state.withLock { $0.waiterCount } }

  /// How many requests are suspended at `key`.
  public func waiterCount(for key: Key) -> Int { state.withLock { $0.waiterCount(for: key) } }

  /// `KeyedGates("search") (2 requested; waiting: "sw" ×1, "swift" ×1)`.
  public var description: String {
    let (count, waiting) = state.withLock { ($0.requestedKeys.count, $0.waitingKeys) }
    let list =
      waiting.isEmpty
      ? "nobody waiting"
      : "waiting: " + waiting.map { "\(String(reflecting: $0.key)) ×\($0.count)" }.joined(separator: ", ")
    return "KeyedGates(\"\(name)\") (\(count) requested; \(list))"
  }

  /// Records a request for `key` and waits until the test opens that key; returns at once if it
  /// already has.
  ///
  /// - Parameters:
  ///   - key: The key to wait for: the query, the record id.
  ///   - timeout: A failure bound: when it elapses, the wait throws a
  ///     ``WaitTimeoutError`` naming the key.
  /// - Throws: ``WaitTimeoutError``, or `CancellationError` if the waiting task is cancelled.
  nonisolated(nonsending) public func wait(
    for key: Key, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await state.wait(
      for: "key \(String(reflecting: key)) of KeyedGates(\"\(self.name)\") to open", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      arrive: { $0.arrive($1, key: key, $2) },
      depart: { $0.depart($1, key: key) },
      pending: { _ in ["nobody opened \(String(reflecting: key))"] })
  }

  /// Opens the gate of `key`, resuming its waiters in arrival order; later requests for `key`
  /// pass straight through. Opening a key twice does nothing.
  public func open(_ key: Key) {
    let waiters = state.withLock { $0.open(key) }
    for waiter in waiters { waiter.resume() }
  }

  /// Waits until at least `count` requests have been made in total, for any keys.
  ///
  /// - Throws: ``WaitTimeoutError`` listing the keys that were requested, or `CancellationError`.
  nonisolated(nonsending) public func waitForRequests(
    _ count: Int, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await watch(
      .count(count), awaited: "\(count) request(s) at KeyedGates(\"\(name)\")", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits until `key` has been requested at least once.
  ///
  /// - Throws: ``WaitTimeoutError`` listing the keys that were requested, or `CancellationError`.
  nonisolated(nonsending) public func waitForRequest(
    of key: Key, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    try await watch(
      .key(key), awaited: "a request for \(String(reflecting: key)) at KeyedGates(\"\(name)\")",
      timeout: timeout, site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  nonisolated(nonsending) private func watch(
    _ target: KeyedGatesState<Key, Waiter<Void>>.Target, awaited: String, timeout: Duration,
    site: CallSite
  ) async throws {
    try await state.wait(
      for: awaited, timeout: timeout, site: site,
      arrive: { ($0.watch($1, target: target, $2), []) },
      depart: { $0.departWatcher($1) },
      pending: { state in
        let keys = state.requestedKeys
        return [
          keys.isEmpty
            ? "no key was requested"
            : "requested so far: " + keys.map { String(reflecting: $0) }.joined(separator: ", ")
        ]
      })
  }
}
