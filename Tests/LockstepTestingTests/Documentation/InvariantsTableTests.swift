// CONTRIBUTING.md's "Runtime invariants" table names, for each invariant, the code that enforces it
// and the tests that check it. These tests keep the table from drifting: every type, function,
// file and test it names exists, and every invariant a comment cites by name is a row of it.

import Foundation
import LockstepTestSupport
import Testing

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct InvariantsTableTests {
  @Test func everythingTheTableNamesExists() async throws {
    try await onAThreadOfItsOwn {
      let table = try InvariantsTable.read()
      #expect(table.rows.count >= 20)
      let sources = try SourceTree.shared()
      for row in table.rows {
        for name in row.named where !sources.declares(name) {
          Issue.record(
            "CONTRIBUTING.md, invariant “\(row.name)”: `\(name)` names nothing in Sources/ or Tests/")
        }
      }
    }
  }

  @Test func everyInvariantACommentCitesIsInTheTable() async throws {
    try await onAThreadOfItsOwn {
      let names = Set(try InvariantsTable.read().rows.map(\.name))
      for file in try SourceTree.shared().files where !file.path.hasSuffix("InvariantsTableTests.swift") {
        guard file.text.contains("invariant") else { continue }
        for cited in file.text.matches(of: /invariant “([^”]+)”/) where !names.contains(String(cited.1)) {
          Issue.record("\(file.path) cites invariant “\(cited.1)”, which CONTRIBUTING.md does not name")
        }
        if file.text.contains(/invariant \d/) {
          Issue.record("\(file.path) cites an invariant by number: cite it by its name")
        }
      }
    }
  }

  @Test func everyTestACommentCitesExists() async throws {
    try await onAThreadOfItsOwn {
      let sources = try SourceTree.shared()
      for file in sources.files where !file.path.hasSuffix("InvariantsTableTests.swift") {
        guard file.text.contains("Tests.") else { continue }
        for cited in file.text.matches(of: /`([A-Z][A-Za-z]*Tests\.[A-Za-z_]\w*)/) {
          if !sources.declares(String(cited.1)) {
            Issue.record("\(file.path) cites the test `\(cited.1)`, which does not exist")
          }
        }
      }
    }
  }

  @Test func aNameThatDoesNotExistIsFound() async throws {
    try await onAThreadOfItsOwn {
      let sources = try SourceTree.shared()
      #expect(sources.declares("JobRouter.route"))
      #expect(sources.declares("InvariantsTableTests.aNameThatDoesNotExistIsFound"))
      #expect(sources.declares("Routing/JobRouter.swift"))
      #expect(!sources.declares("JobRouter.routeEverythingTwice"))
      #expect(!sources.declares("NoSuchTests"))
      #expect(!sources.declares("Routing/NoSuchFile.swift"))
    }
  }
}

/// The rows of CONTRIBUTING.md's "Runtime invariants" table.
private struct InvariantsTable {
  struct Row {
    /// The bold name the row starts with.
    var name: String
    /// The code-spans of its "enforced by" and "checked by" cells that name code, files or tests.
    var named: [String]
  }
  var rows: [Row]

  static func read() throws -> InvariantsTable {
    let text = try String(contentsOf: SourceTree.root.appending(path: "CONTRIBUTING.md"), encoding: .utf8)
    let section = try #require(text.split(separator: "## Runtime invariants").last)
    var rows: [Row] = []
    for line in section.split(separator: "\n") where line.hasPrefix("| **") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
      guard cells.count >= 4, let name = cells[1].firstMatch(of: /\*\*(.+?)\.\*\*/) else { continue }
      let spans = (cells[2] + cells[3]).matches(of: /`([^`]+)`/).map { String($0.1) }
      rows.append(Row(name: String(name.1), named: spans.compactMap(Self.codeName)))
    }
    return InvariantsTable(rows: rows)
  }

  /// The name a code-span gives, without argument labels; `nil` for a command or a flag.
  private static func codeName(_ span: String) -> String? {
    if span.contains(" ") || span.hasPrefix("-") || span.hasPrefix("@") { return nil }
    if let call = span.firstIndex(of: "(") { return String(span[..<call]) }
    return span.hasPrefix(".") ? String(span.dropFirst()) : span
  }
}

/// The Swift and C files under Sources/ and Tests/, and the names they declare.
private struct SourceTree {
  struct File {
    var path: String
    var text: String
  }
  var files: [File]
  /// Every name that follows a Swift keyword that declares, and every C function defined.
  var declared: Set<Substring> = []

  static let root = URL(filePath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The tree, read once for the suite's tests.
  static func shared() throws -> SourceTree { try cached.get() }
  private static let cached = Result { try read() }

  private static func read() throws -> SourceTree {
    var tree = SourceTree(files: [])
    for folder in ["Sources", "Tests"] {
      let base = root.appending(path: folder)
      let walk = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
      for case let url as URL in walk where ["swift", "c", "h"].contains(url.pathExtension) {
        let file = File(
          path: folder + "/" + url.path.dropFirst(base.path.count + 1),
          text: try String(contentsOf: url, encoding: .utf8))
        tree.declared.formUnion(file.declarations)
        tree.files.append(file)
      }
    }
    return tree
  }

  /// Whether `name` is a file (`Folder/File.swift`) or folder (`Drain/`), a declared type or C
  /// function, or `Type.member` with both declared.
  func declares(_ name: String) -> Bool {
    if name.hasSuffix("/") { return files.contains { $0.path.contains("/" + name) } }
    if [".swift", ".c", ".h", ".sh"].contains(where: name.hasSuffix) {
      return files.contains { $0.path.hasSuffix("/" + name) || $0.path == name }
        || FileManager.default.fileExists(atPath: Self.root.appending(path: name).path)
    }
    return name.split(separator: ".").allSatisfy { declared.contains($0) }
  }
}

extension SourceTree.File {
  private static let keywords: Set<String> = [
    "func", "var", "let", "case", "struct", "class", "enum", "actor", "protocol", "extension",
    "typealias", "define",
  ]

  /// The names this file declares: after a Swift keyword, or as a C function defined (a line at
  /// the left margin, not a prototype, whose first call is the name). Read as bytes: a test over
  /// the whole tree must stay quick.
  var declarations: [Substring] {
    var names: [Substring] = []
    let isC = path.hasSuffix(".c") || path.hasSuffix(".h")
    for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
      let words = line.split { !Self.isIdentifier($0) }
      for (keyword, name) in zip(words, words.dropFirst())
      where Self.keywords.contains(String(Substring(keyword))) {
        names.append(Substring(name))
      }
      if isC, let first = line.first, Self.isIdentifier(first), line.last != UInt8(ascii: ";"),
        let call = line.firstIndex(of: UInt8(ascii: "(")),
        let name = line[..<call].split(separator: UInt8(ascii: " ")).last
      {
        names.append(Substring(name.drop { $0 == UInt8(ascii: "*") }))
      }
    }
    return names
  }

  private static func isIdentifier(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
      true
    default: false
    }
  }
}
