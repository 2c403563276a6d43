import Foundation
import LockstepReports

// lockstep-report <folder>…: one verdict over the exploration summaries that the shards of a CI
// matrix wrote with LOCKSTEP_REPORTS=<folder>. Exit status: 0 when every exploration passed and
// every shard is there; 1 when one failed, a shard is missing or a file is not a summary; 2 when
// no summary was found or the arguments are wrong.

let usage = """
  usage: lockstep-report <folder or file>…

  Reads the exploration summaries (lockstep-summary-*.json) that explore writes with
  LOCKSTEP_REPORTS=<folder>, in the folders given and their subfolders, and prints one table: per
  test, the schedules over all shards, whether the shards together covered what was asked, and
  every failure with its replay token and shard. Exits 1 when an exploration failed or a shard is
  missing, 2 when no summary is found.
  """

func standardError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
  print(usage)
  exit(0)
}
if arguments.isEmpty || arguments.contains(where: { $0.hasPrefix("-") }) {
  standardError(usage)
  exit(2)
}
let merge = SummaryMerge(folders: arguments)
for line in merge.warnings(tool: "lockstep-report") {
  standardError(line)
}
guard let verdict = merge.verdict else {
  standardError(
    "lockstep-report: no exploration summary (\(ExplorationSummary.fileNamePrefix)*.json) in "
      + arguments.joined(separator: ", ") + ". " + SummaryMerge.whenSummariesAreWritten
      + "; check that the jobs set it and that their artifacts were downloaded here.")
  exit(merge.exitStatus)
}
print(verdict.table, terminator: "")
exit(merge.exitStatus)
