import Foundation
import LockstepTesting
import Testing

// The test behind scripts/determinism.sh, skipped unless LOCKSTEP_DETERMINISM_DIR is set. The
// script runs it in many processes, with hashing deterministic (the default) and with
// LOCKSTEP_RANDOM_HASHING=1, and compares the files it writes:
//
// - without LOCKSTEP_DETERMINISM_TOKEN: runs the dictionary-order workload with seed 7
//   LOCKSTEP_DETERMINISM_RUNS times and writes each timeline to seed-<n>.txt; explores it once and
//   writes the failing schedule's token (token.txt) and timeline (failure.txt); then replays that
//   token as many times and writes the tally (replays.txt).
// - with LOCKSTEP_DETERMINISM_TOKEN (and LOCKSTEP_DETERMINISM_REFERENCE, the failure.txt of the
//   process that printed the token): replays the token LOCKSTEP_DETERMINISM_RUNS times and writes
//   the tally.
//
// A tally counts each replay as reproduced (the recorded timeline, no divergence reported),
// reported (another timeline, and the replay said it diverged), silent (another timeline, and
// nothing said) or false alarm (the recorded timeline, but a divergence reported).

private let environment = ProcessInfo.processInfo.environment
private let directory = environment["LOCKSTEP_DETERMINISM_DIR"]

private func write(_ text: String, to name: String) throws {
  try text.write(
    to: URL(fileURLWithPath: directory!).appendingPathComponent(name), atomically: true,
    encoding: .utf8)
}

/// Replays `token` `runs` times against `reference`, the timeline it recorded.
private func tally(replaying token: String, runs: Int, reference: String) async -> String {
  var reproduced = 0
  var reported = 0
  var silent = 0
  var falseAlarms = 0
  for _ in 0..<runs {
    let (replay, _) = await collectingIssues {
      await explore(.replay(token), subscribersReceiveInOrder)
    }
    let same = replay.failure.map { "\($0.timeline)\n" } == reference
    let said = replay.divergence != nil
    switch (same, said) {
    case (true, false): reproduced += 1
    case (false, true): reported += 1
    case (false, false): silent += 1
    case (true, true): falseAlarms += 1
    }
  }
  return "reproduced \(reproduced) reported \(reported) silent \(silent) false-alarms \(falseAlarms)\n"
}

@Suite(.timeLimit(.minutes(1)), .enabled(if: directory != nil, "run by scripts/determinism.sh"))
struct DeterminismScriptTests {
  @Test func writeTimelinesAndReplayTallies() async throws {
    let runs = environment["LOCKSTEP_DETERMINISM_RUNS"].flatMap { Int($0) } ?? 100
    if let token = environment["LOCKSTEP_DETERMINISM_TOKEN"] {
      let path = try #require(environment["LOCKSTEP_DETERMINISM_REFERENCE"])
      let reference = try String(contentsOfFile: path, encoding: .utf8)
      try write(await tally(replaying: token, runs: runs, reference: reference), to: "replays.txt")
      return
    }
    for run in 1...runs {
      let outcome = try await runDeterministically(seed: 7) { await broadcastToThree() }
      try write("\(outcome.trace.timeline)\nreceived: \(outcome.value)\n", to: "seed-\(run).txt")
    }
    let (found, _) = await collectingIssues {
      await explore(.random(schedules: 100, seed: 7), subscribersReceiveInOrder)
    }
    let failure = try #require(found.failure)
    try write("\(failure.token)", to: "token.txt")
    try write("\(failure.timeline)\n", to: "failure.txt")
    let tallied = await tally(
      replaying: failure.token.description, runs: runs, reference: "\(failure.timeline)\n")
    try write(tallied, to: "replays.txt")
  }
}
