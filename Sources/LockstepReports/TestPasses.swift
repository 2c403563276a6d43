/// The runs of the test executable each `lockstep-explore` worker makes, as `swift test` makes
/// them: when the arguments name a testing library (`--testing-library swift-testing`), one run
/// with the arguments as they are; otherwise a Swift Testing run with the arguments, then an
/// XCTest run of the XCTest tests that a `--filter` pattern matches and no `--skip` pattern does
/// (on Linux, an XCTest executable takes test names, not patterns). Pure: the XCTest tests come
/// from the executable's `--list-tests` output, read elsewhere.
///
/// ```swift
/// let listing = "Listing 2 tests in debug.xctest:\n\nA.RaceXCTests/testOne\nA.OtherXCTests/testTwo\n"
/// let passes = try TestPasses(arguments: ["--filter", "Race"], xctestListing: listing)
/// print(passes.runs.map(\.arguments))
/// // [["--testing-library", "swift-testing", "--filter", "Race"], ["A.RaceXCTests/testOne"]]
/// ```
public struct TestPasses: Sendable, Equatable {
  /// One run of the test executable.
  public struct Run: Sendable, Equatable {
    /// `Swift Testing`, `XCTest`, or `nil` when the user's arguments chose the library.
    public let library: String?
    /// The arguments it gets.
    public let arguments: [String]

    /// A run of `library` with `arguments`.
    public init(library: String?, arguments: [String]) {
      self.library = library
      self.arguments = arguments
    }

    /// Whether it ending so says that no test matched rather than that one failed: Swift Testing
    /// exits 69 (`EX_UNAVAILABLE`) when it found no test to run.
    public func foundNoTest(_ termination: WorkerOutcome.Termination) -> Bool {
      termination == .exited(69) && library != "XCTest"
    }
  }

  /// The runs, in order.
  public let runs: [Run]

  /// Whether `arguments` name a testing library: then they are passed as they are.
  public static func namesLibrary(_ arguments: [String]) -> Bool {
    arguments.contains { $0 == "--testing-library" || $0.hasPrefix("--testing-library=") }
  }

  /// The runs for the user's `arguments`; `xctestListing` is what the test executable's
  /// `--list-tests` printed (needed only when the arguments name no library).
  public init(arguments: [String], xctestListing: String?) throws(WorkerPlan.ArgumentError) {
    if Self.namesLibrary(arguments) {
      runs = [Run(library: nil, arguments: arguments)]
      return
    }
    var runs = [Run(library: "Swift Testing", arguments: ["--testing-library", "swift-testing"] + arguments)]
    let filters = try Self.patterns("--filter", in: arguments)
    let skips = try Self.patterns("--skip", in: arguments)
    let tests = Self.xctestNames(in: xctestListing ?? "")
    let chosen = tests.filter { name in
      (filters.isEmpty || filters.contains { name.contains($0) }) && !skips.contains { name.contains($0) }
    }
    if !chosen.isEmpty {
      runs.append(Run(library: "XCTest", arguments: filters.isEmpty && skips.isEmpty ? [] : chosen))
    }
    self.runs = runs
  }

  /// The XCTest tests an executable's `--list-tests` output names: its lines `Module.Class/test`.
  public static func xctestNames(in listing: String) -> [String] {
    listing.split(whereSeparator: \.isNewline).map(String.init).filter {
      !$0.isEmpty && !$0.contains(" ") && $0.contains("/")
    }
  }

  /// The patterns given with `option` (`--filter Race` or `--filter=Race`).
  private static func patterns(_ option: String, in arguments: [String]) throws(WorkerPlan.ArgumentError)
    -> [Regex<AnyRegexOutput>]
  {
    var texts: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      if argument == option, index + 1 < arguments.endIndex {
        texts.append(arguments[index + 1])
        index += 1
      } else if argument.hasPrefix(option + "=") {
        texts.append(String(argument.dropFirst(option.count + 1)))
      }
      index += 1
    }
    var patterns: [Regex<AnyRegexOutput>] = []
    for text in texts {
      do {
        patterns.append(try Regex(text))
      } catch {
        throw WorkerPlan.ArgumentError(description: "\(option) \(text) is not a regular expression: \(error)")
      }
    }
    return patterns
  }
}
