/// Turns a ``TaskOrigin`` into words, when a report or a timeline is printed: the function that
/// created the task, with its file and line where debug information has them (``CodeSymbols``).
/// Each origin is symbolicated once per process.
enum TaskOriginSymbols {
  /// What each origin printed as; at most ``cacheLimit`` entries.
  private static let cache = Locked<[TaskOrigin: String]>([:])
  private static let cacheLimit = 4096

  static func text(for origin: TaskOrigin) -> String {
    if let known = cache.withLock({ $0[origin] }) { return known }
    prepare([origin])
    return cache.withLock { $0[origin] } ?? fallback(for: origin)
  }

  /// Symbolicates the origins not yet known, all in one call: each call reads the images' debug
  /// information, so a timeline or a report asks once for all of its tasks.
  static func prepare(_ origins: some Sequence<TaskOrigin>) {
    let missing = Array(Set(origins).filter { origin in cache.withLock { $0[origin] == nil } })
    guard !missing.isEmpty else { return }
    let addresses = missing.flatMap(\.callers)
    let frames = CodeSymbols.frames(at: addresses, as: .returnAddress)
    var offset = 0
    var texts: [TaskOrigin: String] = [:]
    for origin in missing {
      let count = origin.callers.count
      let own = frames.map { Array($0[offset..<(offset + count)]) }
      offset += count
      texts[origin] = own.flatMap(text(from:)) ?? fallback(for: origin)
    }
    cache.withLock { cache in
      for (origin, text) in texts where cache.count < cacheLimit { cache[origin] = text }
    }
  }

  /// An origin no symbols say more of: its innermost address.
  private static func fallback(for origin: TaskOrigin) -> String {
    origin.callers.first.map { "0x" + String($0, radix: 16) } ?? "?"
  }

  /// The innermost frame that is the creating code's own: frames of the standard library's
  /// creation functions (`Task.init`, `Task.detached`, `addTask`, their closures and
  /// specializations, which the compiler emits into the caller's module) and of the runtime are
  /// skipped. Its line is the innermost one its own file has at that address (``ownLine(of:in:)``).
  /// `symbolicated` holds the frames at each of an origin's addresses.
  private static func text(from symbolicated: [[CodeFrame]]) -> String? {
    for frames in symbolicated {
      guard let own = frames.firstIndex(where: { !$0.isLibrary }) else { continue }
      let frame = frames[own]
      guard frame.hasLocation else { return frame.function }
      return CodeFrame(
        function: frame.function, rawName: frame.rawName, file: frame.file,
        line: ownLine(of: frame, in: frames[..<own]), image: frame.image
      ).text
    }
    return nil
  }

  /// The line of `frame`, or that of the innermost of the library frames `inlined` into it (at the
  /// same address) that debug information places in `frame`'s own file. In optimized code a
  /// closure passed to a library function may be inlined into it, and the library function into
  /// `frame`: the body of `withTaskGroup`, with its `addTask` calls. The `Runtime` module drops
  /// the closure's inlined frame (its debug entry has no call column), so the closure's line, the
  /// `addTask` call's, comes as the library function's, and `frame`'s is the `withTaskGroup` call.
  private static func ownLine(of frame: CodeFrame, in inlined: ArraySlice<CodeFrame>) -> Int {
    inlined.first { $0.hasLocation && $0.file == frame.file }?.line ?? frame.line
  }
}
