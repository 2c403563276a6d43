import Foundation
import LockstepTestSupport
import Testing

@testable import LockstepTesting

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
//
// The script compares processes; each process also checks what it can see alone: no replay is
// silent or a false alarm, and with deterministic hashing every run of seed 7 has the same
// timeline and every replay reproduces.

private let environment = ProcessInfo.processInfo.environment
private let directory = environment["LOCKSTEP_DETERMINISM_DIR"]

private func write(_ text: String, to name: String) throws {
  let directory = try #require(directory)
  try text.write(
    to: URL(fileURLWithPath: directory).appendingPathComponent(name), atomically: true,
    encoding: .utf8)
}

/// How the replays of a token went.
private struct Tally: CustomStringConvertible {
  var reproduced = 0
  var reported = 0
  var silent = 0
  var falseAlarms = 0

  var description: String {
    "reproduced \(reproduced) reported \(reported) silent \(silent) false-alarms \(falseAlarms)\n"
  }

  /// What one process can check alone: every replay follows or says it did not, and with
  /// deterministic hashing every replay follows.
  func expectSound(sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(silent == 0 && falseAlarms == 0, "\(self)", sourceLocation: sourceLocation)
    if HashingDeterminism.inProcess {
      #expect(reported == 0, "with deterministic hashing: \(self)", sourceLocation: sourceLocation)
    }
  }
}

/// Replays `token` `runs` times against `reference`, the timeline it recorded.
private func tally(replaying token: String, runs: Int, reference: String) async -> Tally {
  var tally = Tally()
  for _ in 0..<runs {
    let (replay, _) = await collectingIssues {
      await explore(.replay(token), subscribersReceiveInOrder)
    }
    let same = replay.failure.map { "\($0.timeline)\n" } == reference
    let said = replay.divergence != nil
    switch (same, said) {
    case (true, false): tally.reproduced += 1
    case (false, true): tally.reported += 1
    case (false, false): tally.silent += 1
    case (true, true): tally.falseAlarms += 1
    }
  }
  return tally
}

@Suite(
  .timeLimit(.minutes(SuiteTimeLimit.minutes)),
  .enabled(if: directory != nil, "run by scripts/determinism.sh"))
struct DeterminismScriptTests {
  @Test func writeTimelinesAndReplayTallies() async throws {
    let runs = environment["LOCKSTEP_DETERMINISM_RUNS"].flatMap { Int($0) } ?? 100
    if let token = environment["LOCKSTEP_DETERMINISM_TOKEN"] {
      let path = try #require(environment["LOCKSTEP_DETERMINISM_REFERENCE"])
      let reference = try String(contentsOfFile: path, encoding: .utf8)
      let tallied = await tally(replaying: token, runs: runs, reference: reference)
      try write("\(tallied)", to: "replays.txt")
      tallied.expectSound()
      return
    }
    var timelines: Set<String> = []
    for run in 1...runs {
      let outcome = try await runDeterministically(seed: 7) { await broadcastToThree() }
      let text = "\(outcome.trace.timeline)\nreceived: \(outcome.value)\n"
      try write(text, to: "seed-\(run).txt")
      timelines.insert(text)
    }
    if HashingDeterminism.inProcess {
      #expect(timelines.count == 1, "one seed, one schedule: \(timelines.count) distinct timelines")
    }
    let (found, _) = await collectingIssues {
      await explore(.random(schedules: 100, seed: 7), subscribersReceiveInOrder)
    }
    let failure = try #require(found.failure)
    try write("\(failure.token)", to: "token.txt")
    try write("\(failure.timeline)\n", to: "failure.txt")
    let tallied = await tally(
      replaying: failure.token.description, runs: runs, reference: "\(failure.timeline)\n")
    try write("\(tallied)", to: "replays.txt")
    tallied.expectSound()
  }
}
