/// A short string that names one schedule of a deterministic run exactly: the choice made at every
/// point where more than one job was ready, and where exploration injected a cancellation.
///
/// ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)`` prints one for a
/// failing schedule; pass it to ``ExplorationStrategy/replay(_:)-(String)`` to run that schedule again:
///
/// ```swift
/// await explore(.replay("L2.AQAIAkRVAgAA-vMU9srOaw")) { try await twoReloads(variant: .broken) }
/// ```
///
/// A token replays the same schedule as long as the body does the same thing given the same
/// choices — the same tasks, started in the same order. It also records, at every choice point,
/// how many jobs were ready and which task ran, and a checksum of the whole schedule: when a
/// replay does not follow the recorded schedule — after the code under test changed, or because
/// it iterates a `Set` or `Dictionary` while hashing is not deterministic in the process (see
/// ``ReplayDivergence``) — it says where it diverged instead of running another schedule in
/// silence. Tokens of the first version, `L1.…`, are still read; they record only the choices.
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
  ///
  /// ```swift
  /// let token = ReplayToken("L2.AQAIAkRVAgAA-vMU9srOaw")
  /// ```
  public init?(_ description: String) {
    if description.hasPrefix(Self.prefix) {
      guard let bytes = Base64URL.decode(description.dropFirst(Self.prefix.count)),
        let decoded = ReplayTokenLayout.read(bytes)
      else { return nil }
      self = decoded
    } else if description.hasPrefix(Self.firstPrefix) {
      guard let bytes = Base64URL.decode(description.dropFirst(Self.firstPrefix.count)),
        let decoded = Self.decodeFirstVersion(bytes)
      else { return nil }
      self = decoded
    } else {
      return nil
    }
  }

  /// The token's text: `L2.` and, in base64url, the choices and what a replay checks.
  ///
  /// ```swift
  /// print(failure.token)   // "L2.AQAIAkRVAgAA-vMU9srOaw"
  /// ```
  public var description: String {
    guard let check else { return Self.firstPrefix + Base64URL.encode(encodedFirstVersion()) }
    var sink = ByteArraySink()
    ReplayTokenLayout.write(
      TokenArrays(choices: choices, check: check), cancelAtWait: cancelAtWait, whole: check.whole,
      into: &sink)
    return Self.prefix + Base64URL.encode(sink.bytes)
  }

  /// The prefix of the tokens Lockstep prints.
  static let prefix = "L2."
  /// The prefix of the first version's tokens, which record only the choices.
  private static let firstPrefix = "L1."

  // The first version's layout: varint (cancellation point + 1, or 0), varint (number of
  // choices), a packing byte (2 = two bits a choice, 8 = one varint a choice), then the choices.
  private func encodedFirstVersion() -> [UInt8] {
    var bytes: [UInt8] = []
    Varint.append(UInt64(cancelAtWait.map { $0 + 1 } ?? 0), to: &bytes)
    Varint.append(UInt64(choices.count), to: &bytes)
    if choices.allSatisfy({ $0 < 4 }) {
      bytes.append(2)
      var byte: UInt8 = 0
      for (index, choice) in choices.enumerated() {
        byte |= UInt8(choice) << (2 * UInt8(index % 4))
        if index % 4 == 3 {
          bytes.append(byte)
          byte = 0
        }
      }
      if choices.count % 4 != 0 { bytes.append(byte) }
    } else {
      bytes.append(8)
      for choice in choices { Varint.append(UInt64(choice), to: &bytes) }
    }
    return bytes
  }

  private static func decodeFirstVersion(_ bytes: [UInt8]) -> ReplayToken? {
    var position = 0
    guard let cancel = Varint.read(bytes, at: &position),
      let count = Varint.read(bytes, at: &position), count < 10_000_000,
      position < bytes.count
    else { return nil }
    let packing = bytes[position]
    position += 1
    var choices: [Int] = []
    choices.reserveCapacity(Int(count))
    switch packing {
    case 2:
      guard bytes.count - position == (Int(count) + 3) / 4 else { return nil }
      for index in 0..<Int(count) {
        choices.append(Int(bytes[position + index / 4] >> (2 * UInt8(index % 4)) & 3))
      }
    case 8:
      for _ in 0..<count {
        guard let choice = Varint.read(bytes, at: &position), choice < 1 << 31 else { return nil }
        choices.append(Int(choice))
      }
      guard position == bytes.count else { return nil }
    default:
      return nil
    }
    return ReplayToken(choices: choices, cancelAtWait: cancel == 0 ? nil : Int(cancel - 1))
  }
}

/// A token's choices and check, as the layout reads them.
private struct TokenArrays: TokenChoices {
  let choices: [Int]
  let check: ScheduleCheck

  var count: Int { choices.count }
  func choice(_ point: Int) -> Int { choices[point] }
  func readyCount(_ point: Int) -> Int { check.readyCounts[point] }
  func task(_ point: Int) -> Int { check.chosenTasks[point] }
}
