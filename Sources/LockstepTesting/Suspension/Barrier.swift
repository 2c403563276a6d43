/// Holds tasks until a given number of them have arrived, then releases them together: put one
/// inside a fake to make two callers both pass a check before either of them acts on it.
///
/// ```swift
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
  public let parties: Int
  /// The name used in reports.
  public let name: String
  private let state: Locked<BarrierState<Waiter<Void>>>

  /// Creates a barrier for `parties` tasks. Fewer than one party is reported as a misuse, and
  /// the barrier then lets every arrival pass at once.
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
  public var waitingCount: Int { state.withLock { $0.waitingCount } }

  /// How many rounds have been released so far.
  public var releasedRounds: Int { state.withLock { $0.rounds } }

  /// `Barrier("name") (N of M waiting)`.
  public var description: String {
    "Barrier(\"\(name)\") (\(waitingCount) of \(parties) waiting)"
  }

  /// Arrives at the barrier and waits until the round is complete. The last party to arrive
  /// releases every waiting party and returns at once.
  ///
  /// - Throws: ``WaitTimeoutError`` saying how many of the parties arrived, or
  ///   `CancellationError`. Either way the party leaves the round.
  nonisolated(nonsending) public func arriveAndWait(
    timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let parties = self.parties
    try await state.wait(
      for: "Barrier(\"\(self.name)\") to collect \(parties) parties", timeout: timeout,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column),
      arrive: { $0.arrive($1, $2) },
      depart: { $0.depart($1) },
      pending: { ["\($0.waitingCount) of \(parties) arrived"] })
  }
}
