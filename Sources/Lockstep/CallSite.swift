/// The place in source code that made a call: where a task was created, where a wait was
/// started, where a misuse happened.
///
/// Lockstep records a call site wherever it may later need to tell you *where* something came
/// from. APIs capture it with default arguments, so you rarely build one yourself:
///
/// ```swift
/// let site = CallSite()          // this line
/// print(site)                     // "MyAppTests/ProfileTests.swift:12:16"
/// ```
public struct CallSite: Sendable, CustomStringConvertible {
  /// The file's identifier, `Module/File.swift`.
  public let fileID: StaticString
  /// The full path of the file.
  public let filePath: StaticString
  /// The line, starting at 1.
  public let line: UInt
  /// The column, starting at 1.
  public let column: UInt

  /// Creates a call site; with no arguments, the place where you write the initializer.
  public init(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  /// `Module/File.swift:line:column`.
  public var description: String { "\(fileID):\(line):\(column)" }
}
