public import Foundation

/// Reading and writing ``ExplorationSummary`` files: JSON with sorted keys, pretty-printed, and
/// the search of folders for them.
public enum SummaryFiles {
  /// One file that could not be read as a summary, and why.
  public struct Unreadable: Sendable, Equatable, CustomStringConvertible {
    /// The file's path.
    public let path: String
    /// Why it is not a summary.
    public let reason: String

    /// `path: reason`.
    public var description: String { "\(path): \(reason)" }
  }

  /// `summary` as the JSON a file holds.
  public static func encode(_ summary: ExplorationSummary) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(summary) + Data("\n".utf8)
  }

  /// The summary in `data`; a reason a person can act on when it is not one this version reads.
  public static func decode(_ data: Data) -> Result<ExplorationSummary, UnreadableReason> {
    struct Versioned: Decodable { let version: Int? }
    guard let versioned = try? JSONDecoder().decode(Versioned.self, from: data) else {
      return .failure(UnreadableReason("not a JSON object"))
    }
    guard let version = versioned.version else {
      return .failure(UnreadableReason("no \"version\" field: not a Lockstep summary"))
    }
    guard version <= ExplorationSummary.currentVersion else {
      return .failure(
        UnreadableReason(
          "version \(version), newer than the \(ExplorationSummary.currentVersion) this "
            + "lockstep-report reads: update the Lockstep package that runs it"))
    }
    do {
      return .success(try JSONDecoder().decode(ExplorationSummary.self, from: data))
    } catch {
      return .failure(UnreadableReason("not a summary of version \(version): \(error)"))
    }
  }

  /// Why a file is not a summary.
  public struct UnreadableReason: Error, Sendable, Equatable {
    /// What is wrong, for a person to act on.
    public let text: String
    init(_ text: String) { self.text = text }
  }

  /// Every summary file (`lockstep-summary-*.json`) in `folders` and their subfolders, in order
  /// of path; and the folders that do not exist.
  public static func find(in folders: [String]) -> (files: [String], missingFolders: [String]) {
    let manager = FileManager.default
    var files: [String] = []
    var missing: [String] = []
    for folder in folders {
      var isFolder: ObjCBool = false
      guard manager.fileExists(atPath: folder, isDirectory: &isFolder) else {
        missing.append(folder)
        continue
      }
      guard isFolder.boolValue else {
        files.append(folder)
        continue
      }
      let found = (manager.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
      for relative in found {
        let name = (relative as NSString).lastPathComponent
        if name.hasPrefix(ExplorationSummary.fileNamePrefix) && name.hasSuffix(".json") {
          files.append((folder as NSString).appendingPathComponent(relative))
        }
      }
    }
    return (files.sorted(), missing)
  }

  /// Reads every file at `paths`: the summaries, and the files that are not.
  public static func read(_ paths: [String]) -> (
    summaries: [ExplorationSummary], unreadable: [Unreadable]
  ) {
    var summaries: [ExplorationSummary] = []
    var unreadable: [Unreadable] = []
    for path in paths {
      guard let data = FileManager.default.contents(atPath: path) else {
        unreadable.append(Unreadable(path: path, reason: "cannot be read"))
        continue
      }
      switch decode(data) {
      case .success(let summary): summaries.append(summary)
      case .failure(let reason): unreadable.append(Unreadable(path: path, reason: reason.text))
      }
    }
    return (summaries, unreadable)
  }
}
