import Foundation
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Reports name functions, files and lines by reading the binary's line tables in one pass
/// (`lockstep_source_lines`), not by the `Runtime` module's lookup per address: both must agree.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CodeSymbolsTests {
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: CodeSymbols.isAvailable))
  func theLineTablesGiveTheLinesTheRuntimeLookupGives() throws {
    let addresses = CallStack.deep(8)
    try #require(addresses.count >= 8)
    let fast = try #require(CodeSymbols.frames(at: addresses, as: .returnAddress))
    let slow = try #require(CodeSymbols.framesFromRuntimeAlone(at: addresses, as: .returnAddress))
    var compared = 0
    for (own, runtime) in zip(fast, slow) {
      guard let own = own.first, let innermost = runtime.first, let function = runtime.last else {
        continue
      }
      // Where the address is: the innermost frame's file and line; in which function: the outermost.
      #expect(own.file == innermost.file && own.line == innermost.line, "\(own) ≠ \(innermost)")
      #expect(own.rawName == function.rawName, "\(own) ≠ \(function)")
      if own.hasLocation { compared += 1 }
    }
    // This file's own frames, at least: the calls of `deep(_:)`.
    #expect(compared >= 8)
    let here = fast.compactMap(\.first).filter { $0.file == "CodeSymbolsTests.swift" }
    #expect(here.contains { $0.line == CallStack.recursionLine }, "\(here)")
  }
}

private enum CallStack {
  static let recursionLine = #line + 3
  @inline(never) static func deep(_ depth: Int) -> [UInt] {
    guard depth == 0 else {
      let addresses = deep(depth - 1)
      return addresses
    }
    return Thread.callStackReturnAddresses.map { $0.uintValue }
  }
}
