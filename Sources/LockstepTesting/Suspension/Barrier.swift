/// Holds tasks until a given number of them have arrived, then releases them together.
///
/// A barrier forces an interleaving that is otherwise rare: put one inside a fake to make two
/// callers both pass a check before either of them acts on it.
///
/// ```swift
/// // Both callers must be past the "does a draft exist?" check before either writes.
/// let barrier = Barrier(parties: 2)
/// let validator = Validator { _ in try await barrier.arriveAndWait() }
/// let store = DraftStore(validator: validator)
///
/// async let first: Void = store.createIfNeeded(id: 1)
/// async let second: Void = store.createIfNeeded(id: 1)
/// _ = try await (first, second)
/// #expect(await store.draftCount == 1)
/// ```
///
/// The barrier is cyclic: once a round is released, the next arrivals start a new round. A party
/// that is cancelled, or whose timeout elapses, leaves the round and throws.
public final class Barrier: Sendable, CustomStringConvertible {
  /// How many parties a round needs.
  ///
  /// ```swift
  /// #expect(Barrier(parties: 2).parties == 2)
  /// ```
  public let parties: Int
  /// The name used in reports.
  ///
  /// ```swift
  /// let barrier = Barrier(parties: 2, name: "past the check")
  /// print(barrier.name)   // "past the check"
  /// ```
  public let name: String
  private let state: Locked<BarrierState<Waiter<Void>>>

  /// Creates a barrier for `parties` tasks.
  ///
  /// ```swift
  /// let barrier = Barrier(parties: 2, name: "past the existence check")
  /// ```
  ///
  /// A barrier needs at least one party. Zero or a negative number is reported as a misuse at
  /// the call site, and the barrier then lets every arrival pass at once, so that a test fails
  /// with a clear message instead of hanging.
  public init(
    parties: Int, name: String = "barrier",
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    if parties < 1 {
      reportIssue(
        "Barrier(parties: \(parties)): a barrier needs at least one party; every arrival will pass at once.",
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }
    self.parties = parties
    self.name = name
    state = Locked(BarrierState(parties: max(parties, 1)))
  }

  /// How many parties are waiting in the current round.
  ///
  /// ```swift
  /// #expect(barrier.waitingCount == 1)   // the first caller is held
  /// ```
  public var waitingCount: Int { state.withLock { $0.waitingCount } }

  /// How many rounds have been released so far.
  ///
  /// ```swift
  /// #expect(barrier.releasedRounds == 1)
  /// ```
  public var releasedRounds: Int { state.withLock { $0.rounds } }

  /// `Barrier("name") (N of M waiting)`.
  ///
  /// ```swift
  /// print(barrier)   // Barrier("past the check") (1 of 2 waiting)
  /// ```
  public var description: String {
    "Barrier(\"\(name)\") (\(waitingCount) of \(parties) waiting)"
  }

  /// Arrives at the barrier and waits until the round is complete. The last party to arrive
  /// releases every waiting party and returns at once.
  ///
  /// ```swift
  /// func validate(_ id: Int) async throws {
  ///   try await barrier.arriveAndWait()
  /// }
  /// ```
  ///
  /// - Throws: ``WaitTimeoutError`` saying how many of the parties arrived, or
  ///   `CancellationError`. Either way the party leaves the round.
  nonisolated(nonsending) public func arriveAndWait(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let state = self.state
    let description = "Barrier(\"\(name)\") to collect \(parties) parties"
    let parties = self.parties
    try await lockstepWait(
      for: description,
      timeout: timeout,
      site: site,
      arrive: { id, waiter in
        let (suspends, released) = state.withLock { $0.arrive(id, waiter) }
        for party in released { party.resume() }
        return suspends
      },
      depart: { id in state.withLock { $0.depart(id) } },
      pending: { ["\(state.withLock { $0.waitingCount }) of \(parties) arrived"] })
  }
}
