/// A short string that names one schedule of a deterministic run exactly: the choice made at every
/// point where more than one job was ready, and where exploration injected a cancellation.
///
/// ``explore(_:cancellation:maxSteps:timeout:fileID:filePath:line:column:_:)`` prints one for a
/// failing schedule; pass it to ``ExplorationStrategy/replay(_:)-(String)`` to run that schedule again:
///
/// ```swift
/// await explore(.replay("L1.AgwUQQ")) { try await twoReloads(variant: .broken) }
/// ```
///
/// A token replays the same schedule as long as the body does the same thing given the same
/// choices — the same tasks, started in the same order. After the code under test changes, a
/// token may no longer fit; replaying then reports that it diverged.
public struct ReplayToken: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
  /// The index picked at each choice point, among the ready jobs in arrival order.
  let choices: [Int]
  /// The Lockstep wait (0-based, in the order they happen) at which the waiting task was
  /// cancelled, if any.
  let cancelAtWait: Int?

  init(choices: [Int], cancelAtWait: Int?) {
    self.choices = choices
    self.cancelAtWait = cancelAtWait
  }

  /// Reads a token printed by an exploration; `nil` when the text is not a token.
  ///
  /// ```swift
  /// let token = ReplayToken("L1.AgwUQQ")
  /// ```
  public init?(_ description: String) {
    guard description.hasPrefix(Self.prefix),
      let bytes = Base64URL.decode(description.dropFirst(Self.prefix.count)),
      let decoded = Self.decode(bytes)
    else { return nil }
    self = decoded
  }

  /// The token's text: `L1.` and the choices in base64url.
  ///
  /// ```swift
  /// print(failure.token)   // "L1.AgwUQQ"
  /// ```
  public var description: String { Self.prefix + Base64URL.encode(encoded()) }

  private static let prefix = "L1."

  // Layout: varint (cancellation point + 1, or 0), varint (number of choices), a packing byte
  // (2 = two bits a choice, 8 = one varint a choice), then the choices.
  private func encoded() -> [UInt8] {
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

  private static func decode(_ bytes: [UInt8]) -> ReplayToken? {
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
