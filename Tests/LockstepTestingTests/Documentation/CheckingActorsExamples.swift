import LockstepTestSupport
import LockstepTesting
import Testing
import XCTest

// MARK: - Checking an actor under concurrent calls (CheckingAnActorUnderConcurrentCalls.md)

/// What `withdraw` throws when the balance cannot cover it.
private struct InsufficientFunds: Error, Equatable {}

/// An account whose `withdraw` awaits the fraud check between the balance check and the debit —
/// unless `checksAgain`, which checks the balance again after the await.
private actor Account {
  private(set) var balance: Int
  private let fraudCheck = FraudCheck()
  private let checksAgain: Bool

  init(balance: Int, checksAgain: Bool = false) {
    self.balance = balance
    self.checksAgain = checksAgain
  }

  func withdraw(_ amount: Int) async throws -> Int {
    guard balance >= amount else { throw InsufficientFunds() }
    await fraudCheck.approve(amount)
    if checksAgain { guard balance >= amount else { throw InsufficientFunds() } }
    balance -= amount
    return balance
  }

  func deposit(_ amount: Int) {
    balance += amount
  }
}

/// Another actor: awaiting it suspends the account.
private actor FraudCheck {
  func approve(_ amount: Int) {}
}

private func operations(checksAgain: Bool) -> [LinearizabilityOperation<Account, Never>] {
  [
    .call("withdraw", with: [30, 80]) { try await $0.withdraw($1) },
    .call("deposit", with: [50]) { await $0.deposit($1) },
    .call("balance") { await $0.balance },
  ]
}

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CheckingActorsExamples {
  @Test func anAccountThatAwaitsBetweenCheckAndDebitIsCaught() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        of: { Account(balance: 100) }, operations: operations(checksAgain: false))
    }
    expectOneIssue(
      issues, containing: "found results that no order of the calls gives", "withdraw(80) → 20",
      "but would throw InsufficientFunds() here")
    #expect(result.failure?.size == "2 tasks × 1 call")
  }

  @Test func theAccountThatChecksAgainPasses() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        of: { Account(balance: 100, checksAgain: true) }, operations: operations(checksAgain: true))
    }
    expectIssues(issues, containing: [])
    #expect(result.failure == nil && result.scenariosRun == 20)
  }

  @Test func aModelStatesWhatEachCallShouldDo() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .pct(schedules: 200, depth: 2), scenarios: .random(30, tasks: 2...3, callsPerTask: 1...2),
        of: { Account(balance: 100) }, model: 100,
        operations: [
          .call("withdraw", with: [30, 80]) {
            try await $0.withdraw($1)
          } model: { balance, amount in
            guard balance >= amount else { throw InsufficientFunds() }
            balance -= amount
            return balance
          },
          .call("deposit", with: [50]) {
            await $0.deposit($1)
          } model: { balance, amount in
            balance += amount
          },
        ])
    }
    expectOneIssue(issues, containing: "found results that no order of the calls gives")
    #expect(result.failure?.isNotLinearizable == true)
  }

  @Test func anInvariantIsCheckedAfterEveryRun() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        of: { Account(balance: 100, checksAgain: true) }, operations: operations(checksAgain: true),
        invariant: { account in
          let balance = await account.balance
          #expect(balance >= 0, "the account is overdrawn")
        })
    }
    expectIssues(issues, containing: [])
    #expect(result.failure == nil)
  }

  @Test func aFailureReplaysFromItsToken() async {
    let (found, _) = await collectingIssues {
      await checkLinearizability(
        of: { Account(balance: 100) }, operations: operations(checksAgain: false))
    }
    guard let failure = found.failure else {
      Issue.record("nothing found")
      return
    }
    let (replayed, issues) = await collectingIssues {
      await checkLinearizability(
        .replay(failure.token), of: { Account(balance: 100) },
        operations: operations(checksAgain: false))
    }
    expectOneIssue(issues, containing: "withdraw(80) → 20")
    #expect(replayed.failure?.token == failure.token && replayed.failure?.calls == failure.calls)
  }
}

final class CheckingActorsXCTests: XCTestCase {
  func testTheAccountThatChecksAgainPasses() async {
    let result = await checkLinearizability(
      of: { Account(balance: 100, checksAgain: true) }, operations: operations(checksAgain: true))
    XCTAssertNil(result.failure)
  }
}
