import Foundation

/// Where a Lockstep issue or warning goes, decided from what is running: the active collector of
/// ``collectingIssues(isolation:_:)``, the Swift Testing test that is running, XCTest, or — when
/// no test framework runs (a plain executable) — standard error, as a line that names the
/// location the way compilers do (`File.swift:12:5: error: …`).
enum IssueDestination: Equatable {
  case collector
  case swiftTesting
  case xcTest
  case standardError

  /// The destination for an issue reported with `collecting` (a collector is active),
  /// `inSwiftTestingTest` (`Test.current` is set, or was where the reporting primitive was made),
  /// `inXCTestProcess` (XCTest runs this process's tests, see
  /// ``isXCTestProcess(executable:environment:)``) and `runsSwiftTesting` (this process runs the
  /// Swift Testing tests, see ``runsSwiftTesting(arguments:)``). A report from a thread with no
  /// test of its own goes to Swift Testing in a process that runs Swift Testing: it reaches the
  /// runner and fails the run, where `XCTFail` outside an XCTest case would be lost.
  static func choose(
    collecting: Bool, inSwiftTestingTest: Bool, inXCTestProcess: Bool, runsSwiftTesting: Bool
  ) -> Self {
    if collecting { return .collector }
    if inSwiftTestingTest { return .swiftTesting }
    if runsSwiftTesting { return .swiftTesting }
    if inXCTestProcess { return .xcTest }
    return .standardError
  }

  /// Whether a process with these arguments runs only Swift Testing's tests: `swift test` starts
  /// the test bundle once for XCTest and once with `--testing-library swift-testing`.
  static func runsSwiftTesting(arguments: [String]) -> Bool {
    zip(arguments, arguments.dropFirst()).contains {
      $0 == "--testing-library" && $1 == "swift-testing"
    }
  }

  /// Whether this process runs only Swift Testing's tests; decided once.
  static let runsSwiftTesting = runsSwiftTesting(arguments: CommandLine.arguments)

  /// Whether XCTest runs the tests of a process with this executable path (its first argument)
  /// and environment: the executable is a test bundle (`….xctest`, as `swift test` runs it on
  /// Linux) or the `xctest` tool, or Xcode's test configuration is in the environment.
  static func isXCTestProcess(executable: String, environment: [String: String]) -> Bool {
    let name = executable.split(separator: "/").last.map(String.init) ?? executable
    return name.hasSuffix(".xctest") || name == "xctest"
      || environment["XCTestConfigurationFilePath"] != nil
      || environment["XCTestBundlePath"] != nil
  }

  /// Whether XCTest runs this process's tests; decided once.
  static let inXCTestProcess = isXCTestProcess(
    executable: CommandLine.arguments.first ?? "", environment: ProcessInfo.processInfo.environment)

  /// The line written to standard error when no test framework runs.
  static func standardErrorLine(_ message: String, at site: CallSite, isWarning: Bool) -> String {
    "\(site.filePath):\(site.line):\(site.column): \(isWarning ? "warning" : "error"): \(message)\n"
  }

  /// Writes a line to standard error.
  static func writeToStandardError(_ line: String) {
    FileHandle.standardError.write(Data(line.utf8))
  }
}
