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
