#if os(Linux) && canImport(Runtime)
  // `Backtrace(architecture:frames:images:)`, to symbolicate addresses captured earlier.
  @_spi(Internal) import Runtime
#endif

/// Turns a ``TaskOrigin`` into words, when a report or a timeline is printed: the function that
/// created the task, with its file and line where debug information has them. Uses the
/// toolchain's `Runtime` module (SE-0419 backtraces); one symbolication takes about a millisecond,
/// so each origin is symbolicated once per process.
enum TaskOriginSymbols {
  /// What each origin printed as; at most ``cacheLimit`` entries.
  private static let cache = Locked<[TaskOrigin: String]>([:])
  private static let cacheLimit = 4096

  static func text(for origin: TaskOrigin) -> String {
    if let known = cache.withLock({ $0[origin] }) { return known }
    let text = symbolicated(origin) ?? origin.callers.first.map { "0x" + String($0, radix: 16) } ?? "?"
    cache.withLock { cache in
      if cache.count < cacheLimit { cache[origin] = text }
    }
    return text
  }

  #if os(Linux) && canImport(Runtime)
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

    /// The innermost frame that is the creating code's own: frames of the standard library's
    /// creation functions (`Task.init`, `Task.detached`, `addTask`, their closures and
    /// specializations, which the compiler emits into the caller's module) and of the runtime are
    /// skipped.
    private static func symbolicated(_ origin: TaskOrigin) -> String? {
      let callers = origin.callers
      guard let first = callers.first else { return nil }
      let images = imageMap(covering: first)
      let backtrace = Backtrace(
        architecture: architecture,
        frames: callers.map { RichFrame<UInt64>.returnAddress(UInt64($0)) }, images: images)
      guard let frames = backtrace.symbolicated(with: images)?.frames else { return nil }
      for frame in frames {
        guard let symbol = frame.symbol, !isLibraryFrame(symbol) else { continue }
        guard let location = symbol.sourceLocation, location.line > 0,
          !location.path.hasPrefix("<")
        else { return symbol.name }
        let file = location.path.split(separator: "/").last.map(String.init) ?? location.path
        return "\(symbol.name) at \(file):\(location.line)"
      }
      return nil
    }

    /// Whether `symbol` belongs to the standard library (its mangled name starts with a standard
    /// type or module: `$sS…`, `$ss…`) or to the runtime's C++ (not a Swift symbol).
    private static func isLibraryFrame(_ symbol: SymbolicatedBacktrace.Symbol) -> Bool {
      let raw = symbol.rawName
      return !raw.hasPrefix("$s") || raw.hasPrefix("$sS") || raw.hasPrefix("$ss")
    }

    /// The name the `Runtime` module gives this machine's architecture.
    private static let architecture = (try? Backtrace.capture(limit: 1))?.architecture ?? ""
  #else
    private static func symbolicated(_ origin: TaskOrigin) -> String? { nil }
  #endif
}
