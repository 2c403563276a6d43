/// The text of a replay token and the bytes behind it: one codec for both token versions, the
/// same code for a token in a report and for the token a signal handler writes as the process
/// crashes (``CrashReport``), so writing goes through plain arithmetic and a ``TokenByteSink``.
///
/// A token is its prefix and the base64url text (URL-safe alphabet, no padding) of its bytes. A
/// *varint* is an unsigned LEB128 integer; *n* is the number of choice points.
///
/// `L2.`, what Lockstep prints (*packed values*: a packing byte, then *n* values — packing 2:
/// two bits each, four a byte, the first in the low bits; packing 8: one varint each):
///
/// | Bytes    | What                                                                   |
/// |----------|------------------------------------------------------------------------|
/// | 1        | flags: bit 0 set for a whole schedule (steps and checksum follow)      |
/// | varint   | the cancellation point + 1, or 0 for none                              |
/// | varint   | *n*                                                                    |
/// | packed   | the choices: the index picked at each choice point                     |
/// | packed   | the number of eligible jobs at each choice point, minus 2              |
/// | ⌈n / 4⌉  | the picked job's task, modulo 4, two bits each                         |
/// | varint   | whole schedule only: its steps                                         |
/// | 4        | whole schedule only: its checksum, least significant byte first        |
///
/// A token without the flag holds the choices made before a crash; a replay goes on with default
/// choices after them.
///
/// `L1.`, the first version (still read, written only for a token without a check): a varint
/// (the cancellation point + 1, or 0), a varint (*n*), and the choices, packed as in `L2.`.
enum ReplayTokenCodec {
  /// The prefix of the tokens Lockstep prints.
  static let prefix = "L2."
  /// The prefix of the first version's tokens, which record only the choices.
  static let firstPrefix = "L1."

  /// Reads a token's text, `L2.…` or `L1.…`; `nil` when it is not a token.
  static func decode(_ text: String) -> ReplayToken? {
    if text.hasPrefix(prefix) {
      guard let bytes = Base64URL.decode(text.dropFirst(prefix.count)) else { return nil }
      return ReplayTokenLayout.read(bytes)
    }
    if text.hasPrefix(firstPrefix) {
      guard let bytes = Base64URL.decode(text.dropFirst(firstPrefix.count)) else { return nil }
      return decodeFirstVersion(bytes)
    }
    return nil
  }

  /// A token's text: `L2.…`, or `L1.…` for a token that records only its choices.
  static func encode(_ token: ReplayToken) -> String {
    guard let check = token.check else {
      return firstPrefix + Base64URL.encode(encodedFirstVersion(token))
    }
    var sink = ByteArraySink()
    ReplayTokenLayout.write(
      TokenArrays(choices: token.choices, check: check), cancelAtWait: token.cancelAtWait,
      whole: check.whole, into: &sink)
    return prefix + Base64URL.encode(sink.bytes)
  }

  private static func encodedFirstVersion(_ token: ReplayToken) -> [UInt8] {
    let (choices, cancelAtWait) = (token.choices, token.cancelAtWait)
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

/// The bytes of an `L2.` token, as the table of ``ReplayTokenCodec`` lays them out.
enum ReplayTokenLayout {
  static let wholeSchedule: UInt8 = 1

  static func write<Choices: TokenChoices, Sink: TokenByteSink>(
    _ choices: Choices, cancelAtWait: Int?, whole: ScheduleCheck.Whole?, into sink: inout Sink
  ) {
    let count = choices.count
    sink.put(whole == nil ? 0 : wholeSchedule)
    Varint.write(UInt64(cancelAtWait.map { $0 &+ 1 } ?? 0), into: &sink)
    Varint.write(UInt64(count), into: &sink)
    var smallChoices = true
    var smallCounts = true
    var point = 0
    while point < count {
      if choices.choice(point) > 3 { smallChoices = false }
      if choices.readyCount(point) &- 2 > 3 { smallCounts = false }
      point &+= 1
    }
    writeValues(count, small: smallChoices, into: &sink) { choices.choice($0) }
    writeValues(count, small: smallCounts, into: &sink) { choices.readyCount($0) &- 2 }
    writeTwoBits(count, into: &sink) { choices.task($0) }
    if let whole {
      Varint.write(UInt64(whole.steps), into: &sink)
      var checksum = whole.checksum
      for _ in 0..<4 {
        sink.put(UInt8(truncatingIfNeeded: checksum))
        checksum >>= 8
      }
    }
  }

  private static func writeValues<Sink: TokenByteSink>(
    _ count: Int, small: Bool, into sink: inout Sink, _ value: (Int) -> Int
  ) {
    if small {
      sink.put(2)
      writeTwoBits(count, into: &sink, value)
    } else {
      sink.put(8)
      var point = 0
      while point < count {
        Varint.write(UInt64(value(point)), into: &sink)
        point &+= 1
      }
    }
  }

  private static func writeTwoBits<Sink: TokenByteSink>(
    _ count: Int, into sink: inout Sink, _ value: (Int) -> Int
  ) {
    var byte: UInt8 = 0
    var point = 0
    while point < count {
      byte |= UInt8(truncatingIfNeeded: value(point) & 3) << UInt8(truncatingIfNeeded: 2 * (point % 4))
      if point % 4 == 3 {
        sink.put(byte)
        byte = 0
      }
      point &+= 1
    }
    if count % 4 != 0 { sink.put(byte) }
  }

  /// Reads what ``write(_:cancelAtWait:whole:into:)`` wrote; `nil` when the bytes are not a token.
  static func read(_ bytes: [UInt8]) -> ReplayToken? {
    var position = 0
    guard let flags = bytes.first, flags & ~wholeSchedule == 0 else { return nil }
    position += 1
    guard let cancel = Varint.read(bytes, at: &position),
      let count = Varint.read(bytes, at: &position), count < 10_000_000
    else { return nil }
    let points = Int(count)
    guard let choices = readValues(points, bytes, &position),
      let counts = readValues(points, bytes, &position)?.map({ $0 + 2 }),
      let tasks = readTwoBits(points, bytes, &position)
    else { return nil }
    var whole: ScheduleCheck.Whole?
    if flags & wholeSchedule != 0 {
      guard let steps = Varint.read(bytes, at: &position), steps < 1 << 40,
        bytes.count - position == 4
      else { return nil }
      var checksum: UInt32 = 0
      for offset in 0..<4 { checksum |= UInt32(bytes[position + offset]) << (8 * offset) }
      position += 4
      whole = ScheduleCheck.Whole(steps: Int(steps), checksum: checksum)
    }
    guard position == bytes.count, zip(choices, counts).allSatisfy({ $0 < $1 }) else { return nil }
    return ReplayToken(
      choices: choices, cancelAtWait: cancel == 0 ? nil : Int(cancel - 1),
      check: ScheduleCheck(readyCounts: counts, chosenTasks: tasks, whole: whole))
  }

  private static func readValues(_ count: Int, _ bytes: [UInt8], _ position: inout Int) -> [Int]? {
    guard position < bytes.count else { return nil }
    let packing = bytes[position]
    position += 1
    switch packing {
    case 2: return readTwoBits(count, bytes, &position)
    case 8:
      var values: [Int] = []
      values.reserveCapacity(count)
      for _ in 0..<count {
        guard let value = Varint.read(bytes, at: &position), value < 1 << 31 else { return nil }
        values.append(Int(value))
      }
      return values
    default: return nil
    }
  }

  private static func readTwoBits(_ count: Int, _ bytes: [UInt8], _ position: inout Int) -> [Int]? {
    let length = (count + 3) / 4
    guard bytes.count - position >= length else { return nil }
    let values = (0..<count).map { Int(bytes[position + $0 / 4] >> (2 * UInt8($0 % 4)) & 3) }
    position += length
    return values
  }
}

/// The choice points a token records, as the layout reads them.
protocol TokenChoices {
  var count: Int { get }
  /// The index picked at choice point `point`.
  func choice(_ point: Int) -> Int
  /// How many jobs were eligible there.
  func readyCount(_ point: Int) -> Int
  /// The picked job's task number, modulo 4.
  func task(_ point: Int) -> Int
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

/// LEB128 unsigned integers.
enum Varint {
  static func append(_ value: UInt64, to bytes: inout [UInt8]) {
    var sink = ByteArraySink()
    write(value, into: &sink)
    bytes += sink.bytes
  }

  static func write<Sink: TokenByteSink>(_ value: UInt64, into sink: inout Sink) {
    var value = value
    repeat {
      var byte = UInt8(truncatingIfNeeded: value & 0x7F)
      value >>= 7
      if value != 0 { byte |= 0x80 }
      sink.put(byte)
    } while value != 0
  }

  static func read(_ bytes: [UInt8], at position: inout Int) -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while position < bytes.count, shift < 64 {
      let byte = bytes[position]
      position += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return value }
      shift += 7
    }
    return nil
  }
}

/// Where the bytes of a token go: an array, or — in a signal handler — a fixed buffer that is
/// written out with `write(2)`. Writing to a sink must not allocate in the handler's sinks, so the
/// token's layout is written with plain arithmetic through this protocol.
protocol TokenByteSink {
  mutating func put(_ byte: UInt8)
}

struct ByteArraySink: TokenByteSink {
  var bytes: [UInt8] = []
  mutating func put(_ byte: UInt8) { bytes.append(byte) }
}

/// Base64 with the URL-safe alphabet and no padding, so tokens survive shells and URLs.
enum Base64URL {
  static func encode(_ bytes: [UInt8]) -> String {
    var sink = Base64URLSink(output: ByteArraySink())
    for byte in bytes { sink.put(byte) }
    sink.finish()
    return String(decoding: sink.output.bytes, as: UTF8.self)
  }

  /// The character of a six-bit value: `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`.
  static func character(_ value: UInt32) -> UInt8 {
    let value = value & 63
    return switch value {
    case 0..<26: UInt8(truncatingIfNeeded: value &+ 65)
    case 26..<52: UInt8(truncatingIfNeeded: value &+ 71)
    case 52..<62: UInt8(truncatingIfNeeded: value &- 4)
    case 62: 45
    default: 95
    }
  }

  /// The six-bit value of a character, or `nil`.
  static func value(of character: UInt8) -> UInt32? {
    switch character {
    case 65...90: UInt32(character - 65)
    case 97...122: UInt32(character - 71)
    case 48...57: UInt32(character + 4)
    case 45: 62
    case 95: 63
    default: nil
    }
  }

  static func decode(_ text: Substring) -> [UInt8]? {
    var values: [UInt32] = []
    for character in text.utf8 {
      guard let value = value(of: character) else { return nil }
      values.append(value)
    }
    guard values.count % 4 != 1 else { return nil }
    var bytes: [UInt8] = []
    var index = 0
    while index < values.count {
      let chunk = values[index..<min(index + 4, values.count)]
      var value: UInt32 = 0
      for (offset, sextet) in chunk.enumerated() { value |= sextet << (18 - 6 * offset) }
      for position in 0..<(chunk.count - 1) { bytes.append(UInt8(value >> (16 - 8 * position) & 0xFF)) }
      index += 4
    }
    return bytes
  }
}

/// Encodes the bytes it is given as base64url characters into `output`, three bytes at a time.
struct Base64URLSink<Output: TokenByteSink>: TokenByteSink {
  var output: Output
  private var bits: UInt32 = 0
  private var pending = 0

  init(output: Output) { self.output = output }

  mutating func put(_ byte: UInt8) {
    bits = bits << 8 | UInt32(byte)
    pending += 1
    guard pending == 3 else { return }
    output.put(Base64URL.character(bits >> 18))
    output.put(Base64URL.character(bits >> 12))
    output.put(Base64URL.character(bits >> 6))
    output.put(Base64URL.character(bits))
    bits = 0
    pending = 0
  }

  /// Writes the last one or two bytes (as two or three characters, without padding).
  mutating func finish() {
    guard pending > 0 else { return }
    let value = bits << (8 * UInt32(3 - pending))
    output.put(Base64URL.character(value >> 18))
    output.put(Base64URL.character(value >> 12))
    if pending == 2 { output.put(Base64URL.character(value >> 6)) }
    bits = 0
    pending = 0
  }
}
