import Foundation
import LockstepExamples
import LockstepTesting

// `lockstep-demo --progress-check`: what a CI log shows of explorations, checked end to end. The
// demo launches itself twice, with standard error a pipe (a CI log) and LOCKSTEP_PROGRESS unset:
// a child exploring for 6 s must write at least two progress lines, one exploring for 100 ms
// none. About 7 s; not part of the default demo.

/// The argument of a child: how many milliseconds it explores.
private let childArgument = "--progress-child"

/// Explores the correct two-reload model for `milliseconds`, then exits.
private func runChild(milliseconds: Int) async -> Never {
  let result = await explore(
    .random(schedules: 100_000_000, seed: 1).forAtMost(.milliseconds(milliseconds))
  ) {
    try await RaceChecks.twoReloads(variant: .correct)
  }
  print("schedules=\(result.schedulesRun) failed=\(result.failure != nil)")
  exit(result.failure == nil ? 0 : 1)
}

/// The progress lines a child exploring for `milliseconds` wrote to standard error.
private func progressLines(exploringFor milliseconds: Int) throws -> [String] {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  child.arguments = [childArgument, "\(milliseconds)"]
  var environment = ProcessInfo.processInfo.environment
  environment["LOCKSTEP_PROGRESS"] = nil
  child.environment = environment
  let errors = Pipe()
  child.standardError = errors
  child.standardOutput = FileHandle.nullDevice
  try child.run()
  let data = errors.fileHandleForReading.readDataToEndOfFile()
  child.waitUntilExit()
  return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    .filter { $0.hasPrefix("lockstep: explore at ") }
}

/// Runs the check, or the child's part when launched as one; `nil` when neither was asked for.
func progressCheck() async -> Bool? {
  let arguments = CommandLine.arguments
  if let index = arguments.firstIndex(of: childArgument) {
    await runChild(
      milliseconds: arguments.indices.contains(index + 1) ? Int(arguments[index + 1]) ?? 100 : 100)
  }
  guard arguments.contains("--progress-check") else { return nil }
  do {
    let long = try progressLines(exploringFor: 6_000)
    let short = try progressLines(exploringFor: 100)
    for line in long { print("  6 s:    \(line)") }
    let progress = long.filter { !$0.contains(": ended after ") }
    let healthy = progress.count >= 2 && short.isEmpty
    print(
      healthy
        ? "✔ 6 s of exploring wrote \(progress.count) progress lines and a last one; 100 ms wrote none"
        : "✘ 6 s of exploring wrote \(progress.count) progress lines (at least 2 expected); 100 ms "
          + "wrote \(short.count) (none expected): \(short)")
    return healthy
  } catch {
    print("✘ could not launch the demo as a child process: \(error)")
    return false
  }
}
