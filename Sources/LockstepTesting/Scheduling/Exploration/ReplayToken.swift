/// A short string that names one schedule of a deterministic run exactly: the choice made at every
/// point where more than one job was ready, and where exploration injected a cancellation.
///
/// ``explore(_:cancellation:maxSteps:timeout:gracePeriod:fileID:filePath:line:column:_:)`` prints one for a
/// failing schedule; pass it to ``ExplorationStrategy/replay(_:)-(String)`` to run that schedule
/// again. A replay that leaves the recorded schedule says where (``ReplayDivergence``); see
/// <doc:FindingRaces#Replay-the-failure>.
///
/// ```swift
/// await explore(.replay("L2.AQAIAkRVAgAA-vMU9srOaw")) { try await twoReloads(variant: .broken) }
/// ```
public struct ReplayToken: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
  /// The index picked at each choice point, among the ready jobs in arrival order.
  let choices: [Int]
  /// The Lockstep wait (0-based, in the order they happen) at which the waiting task was
  /// cancelled, if any.
  let cancelAtWait: Int?
  /// What a replay checks to tell whether it follows the recorded schedule; `nil` for an `L1.`
  /// token, which records only its choices.
  let check: ScheduleCheck?

  init(choices: [Int], cancelAtWait: Int?, check: ScheduleCheck? = nil) {
    self.choices = choices
    self.cancelAtWait = cancelAtWait
    self.check = check
  }

  /// The token of a schedule that ran: its choices, and what a replay checks.
  init(record: ScheduleRecord, cancelAtWait: Int?, trace: SchedulerTrace) {
    self.init(
      choices: record.choices, cancelAtWait: cancelAtWait,
      check: ScheduleCheck(record: record, trace: trace))
  }

  /// Reads a token printed by an exploration, `L2.…` or the older `L1.…`; `nil` when the text is
  /// not a token.
  public init?(_ description: String) {
    guard let token = ReplayTokenCodec.decode(description) else { return nil }
    self = token
  }

  /// The token's text: `L2.` and, in base64url, the choices and what a replay checks.
  public var description: String { ReplayTokenCodec.encode(self) }
}
