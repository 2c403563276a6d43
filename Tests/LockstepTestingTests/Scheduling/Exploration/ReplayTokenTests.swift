import LockstepTestSupport
import Testing

@testable import LockstepTesting

private let shapes: [[Int]] = [
  [], [0], [1, 0, 3, 2, 1], Array(repeating: 1, count: 97), [0, 5, 300, 1, 70_000], [4],
]

/// A check that fits `choices`: at least one more job ready than the choice, tasks cycling.
private func check(for choices: [Int], whole: ScheduleCheck.Whole?) -> ScheduleCheck {
  ScheduleCheck(
    readyCounts: choices.enumerated().map { $0.element + 2 + $0.offset % 3 },
    chosenTasks: choices.indices.map { $0 % 4 }, whole: whole)
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ReplayTokenTests {
  @Test(arguments: shapes)
  func aTokenReadsBackAsTheSameChoicesAndChecks(_ choices: [Int]) throws {
    for cancel in [nil, 0, 7, 1_000] as [Int?] {
      for whole in [ScheduleCheck.Whole(steps: 123, checksum: 0xDEAD_BEEF), nil] {
        let token = ReplayToken(
          choices: choices, cancelAtWait: cancel, check: check(for: choices, whole: whole))
        #expect(token.description.hasPrefix("L2."))
        let read = try #require(ReplayToken(token.description))
        #expect(read == token)
        #expect(read.choices == choices)
        #expect(read.cancelAtWait == cancel)
        #expect(read.check?.whole == whole)
      }
    }
  }

  @Test(arguments: shapes)
  func firstVersionTokensAreStillRead(_ choices: [Int]) throws {
    let token = ReplayToken(choices: choices, cancelAtWait: 3)
    #expect(token.description.hasPrefix("L1."))
    let read = try #require(ReplayToken(token.description))
    #expect(read.choices == choices && read.cancelAtWait == 3 && read.check == nil)
    // A token printed by the first version (the README's example).
    #expect(ReplayToken("L1.AAsCVFEV")?.choices == [0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1])
  }

  @Test func smallChoicesPackIntoAShortToken() {
    let choices = Array(repeating: 1, count: 100)
    let token = ReplayToken(
      choices: choices, cancelAtWait: nil,
      check: ScheduleCheck(
        readyCounts: Array(repeating: 3, count: 100), chosenTasks: Array(repeating: 2, count: 100),
        whole: ScheduleCheck.Whole(steps: 400, checksum: 7)))
    // Six bits a choice point: 75 bytes, plus a few for the header and the end.
    #expect(token.description.count < 120)
  }

  @Test(arguments: [
    "", "L1.", "L2.", "L2.AAA", "hello", "L1.!!!!", "L1.AQ", "L1.AAgCBAEA", "L3.AAAAAg",
    // One choice point whose choice (2) is not below its two ready jobs.
    ReplayToken(choices: [2], cancelAtWait: nil, check: check(for: [0], whole: nil)).description,
  ])
  func textThatIsNotATokenIsRejected(_ text: String) {
    #expect(ReplayToken(text) == nil)
  }

  @Test func aTruncatedTokenIsRejected() {
    let text = ReplayToken(
      choices: [1, 0, 1], cancelAtWait: nil,
      check: check(for: [1, 0, 1], whole: ScheduleCheck.Whole(steps: 9, checksum: 99))
    ).description
    for length in 3..<text.count { #expect(ReplayToken(String(text.prefix(length))) == nil) }
  }

  @Test func replayingTextThatIsNotATokenIsReportedAndRunsNothing() async {
    let (result, issues) = await collectingIssues {
      await explore(.replay("not a token")) { Issue.record("must not run") }
    }
    #expect(result.schedulesRun == 0)
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("is not a replay token") == true)
  }
}
