import Foundation

/// Standard output and standard error, written to by several workers' readers at once: each write
/// is whole, so that lines of two workers never mix.
final class Console: @unchecked Sendable {
  static let shared = Console()
  private let lock = NSLock()

  /// Writes `text` to standard output, or to standard error with `toError`.
  func write(_ text: String, toError: Bool = false) {
    guard !text.isEmpty else { return }
    let handle = toError ? FileHandle.standardError : FileHandle.standardOutput
    lock.withLock { try? handle.write(contentsOf: Data(text.utf8)) }
  }

  /// Writes `line` and a newline to standard error, after `lockstep-explore: `.
  func say(_ line: String) {
    write("lockstep-explore: \(line)\n", toError: true)
  }
}
