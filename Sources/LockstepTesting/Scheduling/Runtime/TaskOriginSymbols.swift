/// Turns a ``TaskOrigin`` into words, when a report or a timeline is printed: the function that
/// created the task, with its file and line where debug information has them (``CodeSymbols``).
/// Each origin is symbolicated once per process.
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

  /// The innermost frame that is the creating code's own: frames of the standard library's
  /// creation functions (`Task.init`, `Task.detached`, `addTask`, their closures and
  /// specializations, which the compiler emits into the caller's module) and of the runtime are
  /// skipped. Its line is the innermost one its own file has at that address (``ownLine(of:in:)``).
  private static func symbolicated(_ origin: TaskOrigin) -> String? {
    guard let symbolicated = CodeSymbols.frames(at: origin.callers, as: .returnAddress) else { return nil }
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
