import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(1)))
struct ReplayTokenTests {
  @Test(arguments: [
    [], [0], [1, 0, 3, 2, 1], Array(repeating: 1, count: 97), [0, 5, 300, 1, 70_000], [4],
  ])
  func aTokenReadsBackAsTheSameChoices(_ choices: [Int]) throws {
    for cancel in [nil, 0, 7, 1_000] as [Int?] {
      let token = ReplayToken(choices: choices, cancelAtWait: cancel)
      let read = try #require(ReplayToken(token.description))
      #expect(read == token)
      #expect(read.choices == choices)
      #expect(read.cancelAtWait == cancel)
    }
  }

  @Test func smallChoicesPackIntoAShortToken() {
    let token = ReplayToken(choices: Array(repeating: 1, count: 100), cancelAtWait: nil)
    #expect(token.description.count < 45)
    #expect(token.description.hasPrefix("L1."))
  }

  @Test(arguments: ["", "L1.", "L2.AAA", "hello", "L1.!!!!", "L1.AQ", "L1.AAgCBAEA"])
  func textThatIsNotATokenIsRejected(_ text: String) {
    #expect(ReplayToken(text) == nil)
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
