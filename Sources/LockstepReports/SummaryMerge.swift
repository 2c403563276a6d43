/// The summaries found in some folders, merged into one ``MatrixVerdict``: what `lockstep-report`
/// and `lockstep-explore` print, and the exit status they share — 0 when every exploration passed
/// and every file and folder was read, 1 when one failed, a shard is missing or a file or folder
/// could not be read, 2 when no summary was found.
///
/// ```swift
/// let merge = SummaryMerge(folders: ["reports"])
/// for line in merge.warnings(tool: "lockstep-report") { print(line) }
/// print(merge.verdict?.table ?? "no summary")
/// exit(merge.exitStatus)
/// ```
public struct SummaryMerge: Sendable {
  /// The summary files read, in order of path.
  public let files: [String]
  /// The folders given that do not exist.
  public let missingFolders: [String]
  /// The files that are not summaries this version reads.
  public let unreadable: [SummaryFiles.Unreadable]
  /// The verdict over the summaries read; `nil` when there was none.
  public let verdict: MatrixVerdict?

  /// Finds the summaries in `folders` and their subfolders (``SummaryFiles/find(in:)``) and
  /// merges them.
  public init(folders: [String]) {
    let (files, missing) = SummaryFiles.find(in: folders)
    self.init(files: files, missingFolders: missing)
  }

  /// Merges the summaries in `files`; `missingFolders` are folders given that were not found.
  public init(files: [String], missingFolders: [String] = []) {
    let (summaries, unreadable) = SummaryFiles.read(files)
    self.files = files
    self.missingFolders = missingFolders
    self.unreadable = unreadable
    verdict = summaries.isEmpty ? nil : MatrixVerdict(summaries)
  }

  /// A line for standard error for each missing folder and each file that is not a summary,
  /// starting with `tool:`.
  public func warnings(tool: String) -> [String] {
    missingFolders.map { "\(tool): \($0): no such folder or file" }
      + unreadable.map { "\(tool): \($0.path) is not a summary this version reads: \($0.reason)" }
  }

  /// 0 when the verdict passed and everything given was read, 2 when no summary was found, 1
  /// otherwise.
  public var exitStatus: Int32 {
    guard let verdict else { return 2 }
    return verdict.passed && unreadable.isEmpty && missingFolders.isEmpty ? 0 : 1
  }

  /// When no summary was found: what explorations write one, for a message that goes on to say
  /// where to look.
  public static let whenSummariesAreWritten =
    "Explorations write one with LOCKSTEP_REPORTS=<folder> when they run at CI scale "
    + "(LOCKSTEP_EXPLORE_TIME, LOCKSTEP_EXPLORE_SCALE or LOCKSTEP_SHARD set, or longer than a few "
    + "seconds) or fail"
}
