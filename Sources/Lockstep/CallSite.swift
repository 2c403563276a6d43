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
  ///
  /// ```swift
  /// print(CallSite().fileID)     // "MyAppTests/ProfileTests.swift"
  /// ```
  public let fileID: StaticString
  /// The full path of the file.
  ///
  /// ```swift
  /// print(CallSite().filePath)   // "/src/MyApp/Tests/MyAppTests/ProfileTests.swift"
  /// ```
  public let filePath: StaticString
  /// The line, starting at 1.
  ///
  /// ```swift
  /// print(CallSite().line)       // 12
  /// ```
  public let line: UInt
  /// The column, starting at 1.
  ///
  /// ```swift
  /// print(CallSite().column)     // 7
  /// ```
  public let column: UInt

  /// Creates a call site; with no arguments, the place where you write the initializer.
  ///
  /// ```swift
  /// func helper(fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  ///             line: UInt = #line, column: UInt = #column) {
  ///   let caller = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  /// }
  /// ```
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
  ///
  /// ```swift
  /// print(CallSite())            // "MyAppTests/ProfileTests.swift:12:7"
  /// ```
  public var description: String { "\(fileID):\(line):\(column)" }
}
