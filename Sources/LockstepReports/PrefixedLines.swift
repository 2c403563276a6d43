/// A stream of output cut into whole lines, each with a prefix: how `lockstep-explore` shows what
/// its workers print, `[worker 2/4] ` before each line, without mixing two workers' half lines.
///
/// ```swift
/// var lines = PrefixedLines(prefix: "[worker 1/2] ")
/// print(lines.add(Array("one\ntw".utf8)), terminator: "")   // "[worker 1/2] one\n"
/// print(lines.finish(), terminator: "")                     // "[worker 1/2] tw\n"
/// ```
public struct PrefixedLines: Sendable {
  /// What goes before every line.
  public let prefix: String
  private var pending: [UInt8] = []

  /// A stream whose lines start with `prefix`.
  public init(prefix: String) {
    self.prefix = prefix
  }

  /// Takes in `bytes`; returns the lines they complete, each with its prefix and newline (empty
  /// when they complete none).
  public mutating func add(_ bytes: some Sequence<UInt8>) -> String {
    pending.append(contentsOf: bytes)
    guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return "" }
    let complete = pending[...last]
    pending.removeSubrange(...last)
    return complete.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map {
      prefix + String(decoding: $0, as: UTF8.self) + "\n"
    }.joined()
  }

  /// The last line, if the stream did not end with a newline: with its prefix and a newline.
  public mutating func finish() -> String {
    defer { pending = [] }
    return pending.isEmpty ? "" : prefix + String(decoding: pending, as: UTF8.self) + "\n"
  }
}
