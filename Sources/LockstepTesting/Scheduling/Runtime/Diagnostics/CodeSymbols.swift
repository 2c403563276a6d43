#if os(Linux) && canImport(Runtime)
  // `lockstep_symbolicate` (`Symbolication.h`), which the `LockstepSymbolication` target defines
  // with the `Runtime` module: imported there alone, so that it never reaches a client.
  import LockstepInterposition
#endif

/// A function of the process, and the line in it, as debug information names an address.
struct CodeFrame: Sendable, Equatable {
  /// The function's demangled name.
  let function: String
  /// The symbol's mangled name.
  let rawName: String
  /// The source file's name (its last path component), when debug information has one.
  let file: String?
  /// The source line; 0 when not known.
  let line: Int
  /// The name of the image that holds the code.
  let image: String

  /// Whether the standard library or the runtime holds the code: a Swift symbol of a standard type
  /// or module (`$sS…`, `$ss…`), or not a Swift symbol at all (the runtime's C++).
  var isLibrary: Bool {
    !rawName.hasPrefix("$s") || rawName.hasPrefix("$sS") || rawName.hasPrefix("$ss")
  }

  /// Whether the compiler made the function to adapt a call — a reabstraction thunk, or the
  /// forwarder of a partial application of one: no line of anyone's code, and a report leaves it
  /// out (its line is wherever the thunk was emitted, often a file of Lockstep's).
  var isThunk: Bool {
    function.hasPrefix("thunk for ") || function.hasPrefix("partial apply for thunk for ")
      || function.hasPrefix("reabstraction thunk")
  }

  /// Whether debug information places it on a line of a source file.
  var hasLocation: Bool { file != nil && line > 0 }

  /// `function at File.swift:12`, or the function alone.
  var text: String {
    guard let file, line > 0 else { return function }
    return "\(function) at \(file):\(line)"
  }

  /// ``text`` with the function named as ``shortened(_:)`` names it: `load() at Cache.swift:31`.
  var shortText: String {
    let function = Self.shortened(function)
    guard let file, line > 0 else { return function }
    return "\(function) at \(file):\(line)"
  }

  /// A demangled function name without what a reader of one line can do without: the closures
  /// around the code (`closure #1 in `), generic parameters (`<A>`), `specialized `.
  /// `closure #1 in cancelOnGracefulShutdown<A>(_:)` is `cancelOnGracefulShutdown(_:)`.
  static func shortened(_ function: String) -> String {
    var name = Substring(function)
    let prefixes = ["specialized ", "partial apply for ", "closure #", "implicit closure #"]
    while let prefix = prefixes.first(where: name.hasPrefix) {
      name = name.dropFirst(prefix.count)
      guard prefix.hasSuffix("#") else { continue }
      // `closure #1 in f()`: what follows ` in ` is the function around the closure.
      guard let range = name.range(of: " in ") else { return function }
      name = name[range.upperBound...]
    }
    var short = ""
    var depth = 0
    for character in name {
      if character == "<" {
        depth += 1
      } else if character == ">" && depth > 0 {
        depth -= 1
      } else if depth == 0 {
        short.append(character)
      }
    }
    return short.isEmpty ? function : short
  }
}

/// Turns code addresses into functions, files and lines, with the toolchain's `Runtime` module
/// (SE-0419 backtraces); only for reports, since one symbolication takes about a millisecond.
enum CodeSymbols {
  /// What an address is.
  enum AddressKind {
    /// The return address of a call: the call is the instruction before it.
    case returnAddress
    /// An instruction itself, such as a function's entry.
    case instruction
  }

  #if os(Linux) && canImport(Runtime)
    /// Whether addresses can be symbolicated here.
    static var isAvailable: Bool { lockstep_symbolication_available() }

    /// The frames at each address, innermost first: the function inlined there (if any) before
    /// the function that holds the code. `nil` when symbolication failed.
    static func frames(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? {
      guard !addresses.isEmpty else { return [] }
      return SymbolicationThread.shared.run { framesHere(at: addresses, as: kind) }
    }

    /// ``frames(at:as:)``, on the calling thread: the functions from the `Runtime` module, their
    /// files and lines from `lockstep_source_lines` (one pass over each image's line table for all
    /// the addresses). The `Runtime` module's own line lookup runs the whole line table again for
    /// every address — seconds for a report in a large debug test binary — so it reads only the
    /// addresses in images whose line table `lockstep_source_lines` cannot read, with their inlined
    /// frames.
    private static func framesHere(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? {
      guard !addresses.isEmpty else { return [] }
      // The call a return address returns from is the instruction before it.
      let instructions = addresses.map { kind == .returnAddress && $0 > 0 ? $0 - 1 : $0 }
      var lines = [lockstep_source_line](repeating: lockstep_source_line(), count: addresses.count)
      lockstep_source_lines(instructions, Int32(addresses.count), &lines)
      let fast = addresses.indices.filter { lines[$0].readable }
      let slow = addresses.indices.filter { !lines[$0].readable }
      var frames = [[CodeFrame]](repeating: [], count: addresses.count)
      for (indices, full) in [(fast, false), (slow, true)] where !indices.isEmpty {
        guard let found = symbolicated(indices.map { addresses[$0] }, as: kind, full: full) else {
          return nil
        }
        for (index, own) in zip(indices, found) { frames[index] = own }
      }
      for index in fast {
        guard let innermost = frames[index].first else { continue }
        let file = lines[index].file.map { String(cString: $0) }
        frames[index][0] = CodeFrame(
          function: innermost.function, rawName: innermost.rawName, file: file.flatMap(fileName(of:)),
          line: Int(lines[index].line), image: innermost.image)
      }
      return frames
    }

    /// The frames at each address as the `Runtime` module alone finds them, its own line lookup
    /// included: what ``frames(at:as:)`` must agree with.
    static func framesFromRuntimeAlone(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? {
      symbolicated(addresses, as: kind, full: true)
    }

    /// The frames `lockstep_symbolicate` finds at each address; `full` adds inlined frames and lines.
    private static func symbolicated(
      _ addresses: [UInt], as kind: AddressKind, full: Bool
    ) -> [[CodeFrame]]? {
      guard !addresses.isEmpty else { return [] }
      var frames = [[CodeFrame]](repeating: [], count: addresses.count)
      let symbolicated = withUnsafeMutablePointer(to: &frames) { frames in
        lockstep_symbolicate(addresses, Int32(addresses.count), kind == .returnAddress, full, frames) {
          context, index, frame in
          guard let frames = context?.assumingMemoryBound(to: [[CodeFrame]].self), let frame = frame?.pointee
          else { return }
          frames.pointee[Int(index)].append(
            CodeFrame(
              function: String(cString: frame.function), rawName: String(cString: frame.raw_name),
              file: frame.path.flatMap { CodeSymbols.fileName(of: String(cString: $0)) },
              line: Int(frame.line), image: String(cString: frame.image)))
        }
      }
      return symbolicated ? frames : nil
    }

    /// The last component of a source path; `nil` for none, or for `<compiler-generated>`.
    private static func fileName(of path: String) -> String? {
      path.isEmpty || path.hasPrefix("<") ? nil : path.split(separator: "/").last.map(String.init)
    }
  #else
    static var isAvailable: Bool { false }

    static func frames(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? { nil }

    static func framesFromRuntimeAlone(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? {
      nil
    }
  #endif
}
