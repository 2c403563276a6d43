import Foundation
import LockstepReports

/// The package's test executable, `<bin path>/<Name>PackageTests.xctest`: given with
/// `--test-binary`, or found in the bin folder `swift build --show-bin-path` names for the package
/// in the current folder, or else in the folder of `lockstep-explore` itself (which `swift run`
/// builds into the same folder).
enum TestExecutable {
  /// Why no test executable can be run.
  struct NotFound: Error, CustomStringConvertible {
    let description: String
  }

  /// The test executable's path.
  static func find(given: String?) throws(NotFound) -> String {
    let files = FileManager.default
    if let given {
      var isFolder: ObjCBool = false
      guard files.fileExists(atPath: given, isDirectory: &isFolder) else {
        throw NotFound(description: "--test-binary \(given): no such file")
      }
      guard !isFolder.boolValue, files.isExecutableFile(atPath: given) else {
        throw NotFound(
          description: "--test-binary \(given) is not an executable file"
            + (isFolder.boolValue ? " (on macOS a .xctest is a bundle: run the shards with swift test)" : ""))
      }
      return given
    }
    guard files.fileExists(atPath: "Package.swift") else {
      throw NotFound(
        description: "no Package.swift here: run lockstep-explore in the package's folder, or give the "
          + "test executable with --test-binary <path>")
    }
    var looked: [String] = []
    for folder in [binPath(), ownFolder()].compactMap({ $0 }) where !looked.contains(folder) {
      looked.append(folder)
      let names = (try? files.contentsOfDirectory(atPath: folder)) ?? []
      if let bundle = WorkerPlan.testBundle(among: names) {
        let path = (folder as NSString).appendingPathComponent(bundle)
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
          throw NotFound(
            description: "\(path) is a bundle, not an executable (macOS): give one with --test-binary, "
              + "or run one swift test a shard, each with its own --scratch-path")
        }
        if files.isExecutableFile(atPath: path) { return path }
      }
      let bundles = names.filter { $0.hasSuffix("PackageTests.xctest") }
      if bundles.count > 1 {
        throw NotFound(
          description: "\(folder) holds several test bundles (\(bundles.joined(separator: ", "))): "
            + "choose one with --test-binary")
      }
    }
    throw NotFound(
      description: "no test executable (<Name>PackageTests.xctest) in "
        + (looked.isEmpty ? "the build folder" : looked.joined(separator: " or "))
        + ": run `swift build --build-tests` first, or give one with --test-binary <path>")
  }

  /// What `swift build --show-bin-path` says, if it says it within a minute.
  private static func binPath() -> String? {
    let swift = ChildProcess(executable: "/usr/bin/env", arguments: ["swift", "build", "--show-bin-path"])
    guard let (termination, output) = try? swift.capture(seconds: 60), termination == .exited(0) else {
      return nil
    }
    let path = output.trimmingCharacters(in: .whitespacesAndNewlines)
    return path.isEmpty ? nil : path
  }

  /// The folder `lockstep-explore` runs from.
  private static func ownFolder() -> String? {
    guard let path = Bundle.main.executablePath else { return nil }
    return ((path as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
  }

  /// What `executable --list-tests` prints: its XCTest tests; `nil` with the reason when it fails.
  static func xctestListing(_ executable: String) -> Result<String, NotFound> {
    let list = ChildProcess(executable: executable, arguments: ["--list-tests"])
    do {
      guard let (termination, output) = try list.capture(seconds: 120) else {
        return .failure(NotFound(description: "\(executable) --list-tests did not end within 2 minutes"))
      }
      guard termination == .exited(0) else {
        return .failure(NotFound(description: "\(executable) --list-tests \(termination)"))
      }
      return .success(output)
    } catch {
      return .failure(NotFound(description: "\(executable) could not be launched: \(error)"))
    }
  }
}
