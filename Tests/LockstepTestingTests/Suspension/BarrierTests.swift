import LockstepTestSupport
import Testing
import XCTest

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct BarrierTests {
  @Test func releasesEveryPartyWhenTheLastArrives() async throws {
    let barrier = Barrier(parties: 3)
    let tasks = TestTaskFactory()
    let released = EventCounter("released")
    for _ in 0..<2 {
      tasks.task {
        try? await barrier.arriveAndWait()
        released.record()
      }
    }
    // A barrier has no arrival signal of its own: poll its count.
    try await waitUntil("two parties wait") { barrier.waitingCount == 2 }
    #expect(released.count == 0)
    try await barrier.arriveAndWait()  // the third party releases the round
    try await tasks.waitUntilIdle()
    #expect(released.count == 2)
    #expect(barrier.releasedRounds == 1)
  }

  @Test func isCyclic() async throws {
    let barrier = Barrier(parties: 1)
    try await barrier.arriveAndWait()
    try await barrier.arriveAndWait()
    #expect(barrier.releasedRounds == 2)
  }

  @Test func zeroPartiesIsAReportedMisuseThatNeverHangs() async throws {
    let (barrier, issues) = await collectingIssues { Barrier(parties: 0) }
    #expect(issues.count == 1)
    #expect(issues.first?.message.contains("Barrier(parties: 0)") == true)
    #expect(issues.first?.site.fileID.description == "LockstepTestingTests/BarrierTests.swift")
    try await barrier.arriveAndWait()  // passes at once
  }

  @Test func negativePartiesAreReportedToSwiftTesting() {
    // Known issue on purpose: the subject is how a misuse report reaches Swift Testing when
    // nothing collects it. Every other check of a report collects it with collectingIssues.
    withKnownIssue {
      _ = Barrier(parties: -1)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("at least one party") }
    }
  }

  @Test func aMissingPartyTimesOutSayingHowManyArrived() async throws {
    let barrier = Barrier(parties: 2, name: "both past the check")
    let error = await #expect(throws: WaitTimeoutError.self) {
      try await barrier.arriveAndWait(timeout: .milliseconds(20))
    }
    #expect(error?.pending == ["1 of 2 arrived"])
    #expect(error?.awaited.contains("both past the check") == true)
    #expect(error?.awaited.contains("2 parties") == true)
    #expect(barrier.waitingCount == 0)  // the party left the round
  }

  @Test func theNameAndPartiesAreWhatTheBarrierWasMadeWithAndWhatItsReportsSay() async throws {
    let barrier = Barrier(parties: 3, name: "all three past the check")
    #expect(barrier.parties == 3)
    #expect(barrier.name == "all three past the check")
    #expect(barrier.description.contains("\"all three past the check\""))
    #expect(barrier.description.contains("0 of 3 waiting"))
    let tasks = TestTaskFactory()
    for _ in 0..<2 { tasks.task { try? await barrier.arriveAndWait() } }
    try await waitUntil("two parties wait") { barrier.waitingCount == 2 }  // no arrival signal
    #expect(barrier.description.contains("2 of 3 waiting"))
    try await barrier.arriveAndWait()  // the third party releases the round
    try await tasks.waitUntilIdle()
    #expect(barrier.description.contains("0 of 3 waiting"))
    #expect(barrier.parties == 3)  // a released round does not change what a round needs
  }

  @Test func aCancelledPartyLeavesTheRound() async throws {
    let barrier = Barrier(parties: 2)
    let party = Task { try await barrier.arriveAndWait() }
    try await waitUntil("one party waits") { barrier.waitingCount == 1 }  // no arrival signal
    party.cancel()
    await #expect(throws: CancellationError.self) { try await party.value }
    #expect(barrier.waitingCount == 0)
  }

  @Test func stateMachine() {
    var state = BarrierState<Int>(parties: 2)
    let first = state.arrive(WaiterID(rawValue: 1), 1)
    let departed = state.depart(WaiterID(rawValue: 1))
    let second = state.arrive(WaiterID(rawValue: 2), 2)
    let third = state.arrive(WaiterID(rawValue: 3), 3)
    #expect(first.suspends && first.released.isEmpty)
    #expect(departed == 1)
    #expect(second.suspends)
    #expect(!third.suspends && third.released == [2])
    #expect(state.rounds == 1 && state.waitingCount == 0)
  }
}

final class BarrierXCTests: XCTestCase {
  func testTwoPartiesReleaseEachOther() async throws {
    let barrier = Barrier(parties: 2)
    async let first: Void = barrier.arriveAndWait()
    async let second: Void = barrier.arriveAndWait()
    _ = try await (first, second)
    XCTAssertEqual(barrier.releasedRounds, 1)
  }
}
