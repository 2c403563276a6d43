/// LEB128 unsigned integers.
enum Varint {
  static func append(_ value: UInt64, to bytes: inout [UInt8]) {
    var value = value
    repeat {
      var byte = UInt8(value & 0x7F)
      value >>= 7
      if value != 0 { byte |= 0x80 }
      bytes.append(byte)
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

/// Base64 with the URL-safe alphabet and no padding, so tokens survive shells and URLs.
enum Base64URL {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
      let chunk = bytes[index..<min(index + 3, bytes.count)]
      var value: UInt32 = 0
      for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
      for position in 0...chunk.count {
        output.append(alphabet[Int(value >> (18 - 6 * position) & 63)])
      }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }

  static func decode(_ text: Substring) -> [UInt8]? {
    var values: [UInt32] = []
    for character in text.utf8 {
      guard let value = alphabet.firstIndex(of: character) else { return nil }
      values.append(UInt32(value))
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
