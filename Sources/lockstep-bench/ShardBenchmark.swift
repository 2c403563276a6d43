import Foundation
import LockstepExamples
import LockstepTesting

// Exploring one scenario in 2 shards, in 2 processes, against the same exploration in one
// process: the bench re-launches itself as child processes (`shardChildVariable` set), each of
// which explores and prints one line, and times them from launch to exit.

/// Set in a child process: how many schedules it explores (its shard, if any, comes from
/// `LOCKSTEP_SHARD`).
private let shardChildVariable = "LOCKSTEP_BENCH_SHARD_CHILD"

private let caseName = "Race finder: 2 shards in 2 processes"

/// What a child printed: its shard, how many schedules it ran, whether all passed, its own time.
private struct ChildReport {
  let shard: String
  let schedules: Int
  let passed: Bool
  let seconds: Double

  init?(_ output: String) {
    guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("shard-child ") })
    else { return nil }
    var fields: [String: String] = [:]
    for field in line.split(separator: " ").dropFirst() {
      let parts = field.split(separator: "=", maxSplits: 1)
      if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    guard let shard = fields["shard"], let schedules = fields["schedules"].flatMap({ Int($0) }),
      let passed = fields["passed"], let seconds = fields["seconds"].flatMap({ Double($0) })
    else { return nil }
    self.shard = shard
    self.schedules = schedules
    self.passed = passed == "true"
    self.seconds = seconds
  }
}

/// The child's work: explore the correct two-reload model, print one line, exit.
private func runChild(schedules: Int) async -> Never {
  var result: ExplorationResult?
  var issues: [ReportedIssue] = []
  let elapsed = await seconds {
    (result, issues) = await collectingIssues {
      await explore(.random(schedules: schedules, seed: 42)) {
        try await RaceChecks.twoReloads(variant: .correct)
      }
    }
  }
  let passed = result?.failure == nil && failures(issues).isEmpty && result?.isComplete == true
  print(
    "shard-child shard=\(result?.shard?.description ?? "none") schedules=\(result?.schedulesRun ?? 0) "
      + "passed=\(passed) seconds=\(elapsed)")
  if !passed { print(issues.map(\.message).joined(separator: "\n")) }
  exit(0)
}

/// Launches one child exploring `schedules` schedules, in `shard` if given.
private func launchChild(schedules: Int, shard: String?) throws -> (Process, Pipe) {
  let process = Process()
  process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = ["--only", caseName, "--json", "/dev/null"]
  var environment = ProcessInfo.processInfo.environment
  environment[shardChildVariable] = "\(schedules)"
  environment["LOCKSTEP_SHARD"] = shard
  environment["LOCKSTEP_EXPLORE_SCALE"] = nil
  environment["LOCKSTEP_EXPLORE_TIME"] = nil
  process.environment = environment
  let output = Pipe()
  process.standardOutput = output
  try process.run()
  return (process, output)
}

/// Runs children side by side, one per entry of `shards`, each exploring `schedules`; returns
/// the wall time from the first launch to the last exit, and what each printed.
private func runChildren(schedules: Int, shards: [String?]) throws -> (Double, [ChildReport]) {
  let start = ContinuousClock.now
  let children = try shards.map { try launchChild(schedules: schedules, shard: $0) }
  var reports: [ChildReport] = []
  for (process, pipe) in children {
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let output = String(decoding: data, as: UTF8.self)
    try require(process.terminationStatus == 0, "a child exited with \(process.terminationStatus): \(output)")
    guard let report = ChildReport(output) else {
      throw BenchmarkFailure(description: "a child printed no report: \(output)")
    }
    reports.append(report)
  }
  let elapsed = start.duration(to: .now)
  return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, reports)
}

func shardCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: caseName) {
    if let text = ProcessInfo.processInfo.environment[shardChildVariable], let schedules = Int(text) {
      await runChild(schedules: schedules)
    }
    // Both sides explore the same number of schedules in all: one process all of them, or two
    // shards half each. Measured in turns, so that load from other processes hits both alike.
    let total = quick ? 10_000 : 40_000
    let repetitions = quick ? 3 : 5
    var single: [Double] = []
    var sharded: [Double] = []
    var inChildren: [Double] = []
    for repetition in 0...repetitions {  // the first turn warms up
      let (one, oneReports) = try runChildren(schedules: total, shards: [nil])
      let (two, twoReports) = try runChildren(schedules: total / 2, shards: ["1/2", "2/2"])
      try require(
        oneReports.map(\.shard) == ["none"] && oneReports[0].schedules == total && oneReports[0].passed,
        "the unsharded child did not explore \(total) passing schedules: \(oneReports)")
      try require(
        twoReports.map(\.shard) == ["1/2", "2/2"]
          && twoReports.allSatisfy { $0.schedules == total / 2 && $0.passed },
        "the shards did not each explore \(total / 2) passing schedules: \(twoReports)")
      if repetition == 0 { continue }
      single.append(one)
      sharded.append(two)
      inChildren.append(oneReports[0].seconds)
    }
    let perSecond = Double(total) / median(sharded)
    let baseline = Double(total) / median(single)
    let ratio = perSecond / baseline
    return [
      .compared(
        "race-shards", "correct model, random(\(total)) as 2 shards in 2 processes, schedules/s",
        perSecond, "sched/s",
        against: "the same \(total) schedules in one process (both timed from launch to exit)",
        baseline: baseline, ratio: ratio, ratioIs: "sharded ÷ one process", goal: "≥ 1.8",
        met: ratio >= 1.8),
      .figure(
        "race-shards-child", "one process, schedules/s inside the process (no launch)",
        Double(total) / median(inChildren), "sched/s"),
    ]
  }
}
