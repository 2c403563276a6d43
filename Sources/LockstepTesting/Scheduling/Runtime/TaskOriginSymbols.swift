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
  /// skipped.
  private static func symbolicated(_ origin: TaskOrigin) -> String? {
    guard let frames = CodeSymbols.frames(at: origin.callers, as: .returnAddress) else { return nil }
    for frame in frames.joined() where !frame.isLibrary {
      guard frame.hasLocation else { return frame.function }
      return frame.text
    }
    return nil
  }
}
