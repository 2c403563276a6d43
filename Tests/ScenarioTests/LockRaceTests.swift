import Foundation
import LockstepExamples
import LockstepTestSupport
import LockstepTesting
import Testing

/// Two tasks reserve the last seat at once.
private func twoReservations(_ variant: Variant) async {
  let seats = LockedSeats(variant: variant, free: 1)
  let first = Task { seats.reserve() }
  let second = Task { seats.reserve() }
  let reserved = await [first.value, second.value].count { $0 }
  #expect(reserved == 1, "\(reserved) reservations of the last seat")
  #expect(seats.freeSeats == 0)
}

/// Two transfers in opposite directions at once.
private func twoTransfers(_ variant: Variant) async {
  let bank = LockedTransfers(variant: variant, balances: [100, 100])
  let there = Task { bank.transfer(30, from: 0, to: 1) }
  let back = Task { bank.transfer(20, from: 1, to: 0) }
  await there.value
  await back.value
  #expect(bank.balances == [90, 110])
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct LockRaceTests {
  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func aCheckThenActAcrossTwoLockSectionsIsFound(seed: UInt64) async {
    let (result, _) = await collectingIssues {
      await explore(.pct(schedules: 500, depth: 2, seed: seed)) { await twoReservations(.broken) }
    }
    #expect(result.failure != nil, "\(result)")
    print("seat seed \(seed): \(result.failure.map { "schedule \($0.schedule)" } ?? "none")")
  }

  @Test func oneLockSectionIsNeverReported() async {
    let result = await explore(.pct(schedules: 2000, depth: 2, seed: 1)) { await twoReservations(.correct) }
    #expect(result.failure == nil, "\(result)")
    print("\(result)")
  }

  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func locksTakenInOppositeOrdersAreADeadlock(seed: UInt64) async {
    let (result, _) = await collectingIssues {
      await explore(.pct(schedules: 500, depth: 2, seed: seed)) { await twoTransfers(.broken) }
    }
    #expect(result.failure != nil, "\(result)")
    print("abba seed \(seed): \(result.failure.map { "schedule \($0.schedule)\n\($0)" } ?? "none")")
  }

  @Test func oneLockOrderIsNeverReported() async {
    let result = await explore(.pct(schedules: 2000, depth: 2, seed: 1)) { await twoTransfers(.correct) }
    #expect(result.failure == nil, "\(result)")
    print("\(result)")
  }
}
