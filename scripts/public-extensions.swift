// Lists the public extensions of other modules' types in symbol graphs (for
// scripts/check-public-extensions.sh): one line for each member added to a type that the
// modules named by `--own` do not define, and one for each protocol such a type is made to
// conform to.
//
//   swift scripts/public-extensions.swift --own Lockstep,LockstepTesting <graph-directory>...
//
// A line reads `LockstepTesting: Swift.Duration.member(label:)` or
// `LockstepTesting: Swift.Int: Protocol`. The graphs need extension block symbols
// (`swift symbolgraph-extract -emit-extension-block-symbols`).
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
var own: Set<String> = []
if let index = arguments.firstIndex(of: "--own"), index + 1 < arguments.count {
  own = Set(arguments[index + 1].split(separator: ",").map(String.init))
  arguments.removeSubrange(index...index + 1)
}

/// A symbol graph file's name: `Module@Extended.symbols.json` holds `Module`'s extensions of
/// `Extended`'s types.
func modules(of file: URL) -> (module: String, extended: String)? {
  let name = file.lastPathComponent
  guard name.hasSuffix(".symbols.json") else { return nil }
  let parts = name.dropLast(".symbols.json".count).split(separator: "@").map(String.init)
  return parts.count == 2 ? (parts[0], parts[1]) : nil
}

/// The symbols and relationships of a graph file.
func graph(at file: URL) throws -> (symbols: [[String: Any]], relationships: [[String: Any]]) {
  let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
  return (graph["symbols"] as? [[String: Any]] ?? [], graph["relationships"] as? [[String: Any]] ?? [])
}

func precise(_ symbol: [String: Any]) -> String? {
  (symbol["identifier"] as? [String: Any])?["precise"] as? String
}

let files = try arguments.flatMap { directory in
  try FileManager.default.contentsOfDirectory(
    at: URL(fileURLWithPath: directory), includingPropertiesForKeys: nil
  ).filter { $0.lastPathComponent.hasSuffix(".symbols.json") }
}

// Every symbol's full name, `Module.Type.member`, for the protocols a conformance names.
var fullNames: [String: String] = [:]
for file in files {
  let module = file.lastPathComponent.prefix { $0 != "@" && $0 != "." }
  for symbol in try graph(at: file).symbols {
    guard let identifier = precise(symbol), let path = symbol["pathComponents"] as? [String] else { continue }
    fullNames[identifier] = ([String(module)] + path).joined(separator: ".")
  }
}

/// Conformances every type has without a word: not an extension's doing.
let implicit: Set = ["Swift.Copyable", "Swift.Escapable"]

var lines: Set<String> = []
for file in files {
  guard let (module, extended) = modules(of: file), !own.contains(extended) else { continue }
  let (symbols, relationships) = try graph(at: file)
  var names: [String: String] = [:]  // precise identifier → the extended type, or the member
  var blocks: Set<String> = []  // the extension blocks
  for symbol in symbols {
    guard let identifier = precise(symbol), let path = symbol["pathComponents"] as? [String] else { continue }
    let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String
    if kind == "swift.extension" {
      let extendedModule = (symbol["swiftExtension"] as? [String: Any])?["extendedModule"] as? String
      names[identifier] = ([extendedModule ?? extended] + path).joined(separator: ".")
      blocks.insert(identifier)
    } else {
      names[identifier] = path.last ?? identifier
    }
  }
  for relationship in relationships {
    guard let kind = relationship["kind"] as? String, let source = relationship["source"] as? String,
      let target = relationship["target"] as? String
    else { continue }
    if kind == "memberOf", blocks.contains(target), let type = names[target] {
      lines.insert("\(module): \(type).\(names[source] ?? source)")
    } else if kind == "conformsTo", blocks.contains(source), let type = names[source] {
      let conformance = fullNames[target] ?? relationship["targetFallback"] as? String ?? target
      if !implicit.contains(conformance) { lines.insert("\(module): \(type): \(conformance)") }
    }
  }
}
for line in lines.sorted() { print(line) }
