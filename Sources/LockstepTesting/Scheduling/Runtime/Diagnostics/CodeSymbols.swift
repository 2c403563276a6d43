#if os(Linux) && canImport(Runtime)
  // `Backtrace(architecture:frames:images:)`, to symbolicate addresses captured earlier.
  @_spi(Internal) import Runtime
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
    static var isAvailable: Bool { !architecture.isEmpty }

    /// The frames at each address, innermost first: the function inlined there (if any) before
    /// the function that holds the code. `nil` when symbolication failed.
    static func frames(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? {
      guard !addresses.isEmpty else { return [] }
      return SymbolicationThread.shared.run { framesHere(at: addresses, as: kind) }
    }

    /// ``frames(at:as:)``, on the calling thread.
    private static func framesHere(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? {
      guard let first = addresses.first else { return [] }
      let images = imageMap(covering: first)
      let captured = addresses.map { address in
        switch kind {
        case .returnAddress: RichFrame<UInt64>.returnAddress(UInt64(address))
        case .instruction: RichFrame<UInt64>.programCounter(UInt64(address))
        }
      }
      let backtrace = Backtrace(architecture: architecture, frames: captured, images: images)
      guard let symbolicated = backtrace.symbolicated(with: images)?.frames else { return nil }
      // The inlined frames of an address come first, its own frame last.
      var byAddress: [UInt: [CodeFrame]] = [:]
      for frame in symbolicated {
        guard let address = address(of: frame.captured), let symbol = frame.symbol else { continue }
        let path = symbol.sourceLocation.map(\.path)
        byAddress[address, default: []].append(
          CodeFrame(
            function: symbol.name, rawName: symbol.rawName,
            file: path.flatMap { $0.hasPrefix("<") ? nil : $0.split(separator: "/").last.map(String.init) },
            line: symbol.sourceLocation.map { Int($0.line) } ?? 0, image: symbol.imageName))
      }
      return addresses.map { byAddress[$0] ?? [] }
    }

    private static func address(of frame: Backtrace.Frame) -> UInt? {
      switch frame {
      case .programCounter(let address), .returnAddress(let address): UInt(address)
      default: nil
      }
    }

    /// The images of the process, captured once (and again when an address lies in none of them:
    /// a library loaded since).
    private static let images = Locked<ImageMap?>(nil)

    private static func imageMap(covering address: UInt) -> ImageMap {
      images.withLock { images in
        if let map = images, map.indexOfImage(at: Backtrace.Address(UInt64(address))) != nil { return map }
        let map = ImageMap.capture()
        images = map
        return map
      }
    }

    /// The name the `Runtime` module gives this machine's architecture.
    private static let architecture = (try? Backtrace.capture(limit: 1))?.architecture ?? ""
  #else
    static var isAvailable: Bool { false }

    static func frames(at addresses: [UInt], as kind: AddressKind) -> [[CodeFrame]]? { nil }
  #endif
}
