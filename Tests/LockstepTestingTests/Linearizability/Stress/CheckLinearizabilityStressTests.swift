import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// A correct counter.
private actor Counter {
  private(set) var count = 0

  func increment() -> Int {
    count += 1
    return count
  }
}

/// A counter whose `increment` says one more than it counted: wrong in every order of calls.
private actor OffByOneCounter {
  private var count = 0

  func increment() -> Int {
    count += 1
    return count + 1
  }
}

/// `take` waits until `give` is called: alone, it never returns.
private actor Handoff {
  private var waiting: [CheckedContinuation<Int, Never>] = []
  func take() async -> Int { await withCheckedContinuation { waiting.append($0) } }
}

/// The stress mode's mechanics: what it runs, counts and reports, and what it refuses.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CheckLinearizabilityStressTests {
  static let twoByTwo = ConcurrentScenarios.random(3, tasks: 2...2, callsPerTask: 2...2)

  @Test func everyRunOfEveryScenarioIsJudgedAgainstTheObjectAlone() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .stress(runs: 200), scenarios: Self.twoByTwo, of: { Counter() },
        operations: [.call("increment") { await $0.increment() }, .call("count") { await $0.count }])
    }
    expectIssues(issues, containing: [])
    #expect(
      result.passed && result.scenariosRun == 3 && result.overlappingRuns == 600 && result.runs >= 600,
      "\(result)")
  }

  @Test func resultsNoOrderGivesAreCountedInEveryRunAgainstAModel() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .stress(runs: 50), scenarios: Self.twoByTwo, of: { OffByOneCounter() }, model: 0,
        operations: [
          .call("increment") {
            await $0.increment()
          } model: { count in
            count += 1
            return count
          }
        ])
    }
    expectOneIssue(
      issues, containing: "found results that no order of the calls gives",
      "stress(runs: 50) on real threads", "No order of these calls, one at a time",
      "50 overlapped; it failed in 50 of those (100 %)",
      "to 1 task × 1 call")
    #expect(
      result.failure?.failedOverlappingRuns == 50 && result.failure?.overlappingRuns == 50
        && result.failure?.failedRuns == result.failure?.runs && result.failure?.isNotLinearizable == true,
      "\(result)")
  }

  @Test func anInvariantThatFailsIsReportedWithTheTableAndCounted() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        // One task, one call, three runs: each failing run is a known issue of this test.
        .stress(runs: 3),
        scenarios: .random(1, tasks: 1...1, callsPerTask: 1...1, callsBefore: 0...0, callsAfter: 0...0),
        of: { Counter() }, operations: [.call("increment") { await $0.increment() }],
        invariant: { counter in
          let count = await counter.count
          #expect(count == 0, "the count never goes back to zero")
        })
    }
    expectOneIssue(
      issues, containing: "found a failing run", "the count never goes back to zero",
      "The calls:", "caller 1", "increment() → 1",
      "3 runs made, 3 overlapped; it failed in 3 of those (100 %).")
    #expect(result.failure?.isNotLinearizable == false && result.failure?.failedRuns == 3)
  }

  @Test func aCallThatNeverReturnsIsNamedAndTheCheckStops() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        .stress(runs: 100),
        scenarios: .random(1, tasks: 2...2, callsPerTask: 1...1, callsBefore: 0...0, callsAfter: 0...0),
        timeout: .seconds(3), of: { Handoff() }, model: 0,
        operations: [
          .call("take") {
            await $0.take()
          } model: { _ in
            1
          }
        ])
    }
    expectOneIssue(
      issues, containing: "found a run that did not finish", "Run 1 did not finish within",
      "caller 1: take()", "caller 2: take()", "had not returned", "take() … never returned",
      "1 run made,", "the last run did not finish")
    #expect(result.failure?.didNotFinish == true && result.runs == 1, "\(result)")
  }

  @Test func aCheckInsideADeterministicRunIsReportedAndNothingRuns() async throws {
    let (result, issues) = try await collectingIssues {
      try await withDeterministicScheduling {
        await checkLinearizability(
          .stress(runs: 10), of: { Counter() }, operations: [.call("increment") { await $0.increment() }])
      }
    }
    expectOneIssue(
      issues, containing: "checkLinearizability(stress(runs: 10)): it cannot run inside a deterministic run",
      "Nothing ran.")
    #expect(result.runs == 0 && result.problem != nil)
  }

  @Test func misuseIsReportedAndNothingRuns() async {
    let increment: [LinearizabilityOperation<Counter, Never>] = [
      .call("increment") { await $0.increment() }
    ]
    let (results, issues) = await collectingIssues {
      [
        await checkLinearizability(.stress(runs: 0), of: { Counter() }, operations: increment),
        await checkLinearizability(.stress(), of: { Counter() }, operations: []),
        await checkLinearizability(
          .stress(), scenarios: .random(0, tasks: 0...2), of: { Counter() }, operations: increment),
        await checkLinearizability(.stress(), timeout: .zero, of: { Counter() }, operations: increment),
        await checkLinearizability(.stress(), maxSteps: 500, of: { Counter() }, operations: increment),
      ]
    }
    expectIssues(
      issues,
      containing: [
        "runs: 0 must be at least 1", "operations: give at least one operation",
        "count: 0 must be at least 1", "timeout: 0.0 seconds must be positive",
        "maxSteps: 500 bounds the jobs of a run under the scheduler",
      ])
    #expect(results.allSatisfy { $0.runs == 0 && !$0.passed })
  }

  @Test func aRunOverlapsWhenTwoTasksHaveCallsInFlightAtOnce() {
    let call = ScenarioCall(operation: 0, argument: 0)
    func log(_ calls: [(task: Int, returns: Bool)]) -> StressCallLog {
      let log = StressCallLog(tasks: 2)
      var started: [(task: Int, index: Int, returns: Bool)] = []
      for (task, returns) in calls { started.append((task, log.invoke(call, task: task), returns)) }
      for (task, index, returns) in started where returns {
        log.respond(task: task, index: index, with: CallOutcome.returned(0))
      }
      return log
    }
    #expect(log([(1, true), (2, true)]).overlapped)
    #expect(log([(1, true), (2, false)]).overlapped, "a call that never returns is in flight")
    #expect(log([(0, true), (1, true)]).overlapped, "one task that calls: nothing to overlap")
    let oneAfterTheOther = StressCallLog(tasks: 2)
    let first = oneAfterTheOther.invoke(call, task: 1)
    oneAfterTheOther.respond(task: 1, index: first, with: CallOutcome.returned(0))
    let second = oneAfterTheOther.invoke(call, task: 2)
    oneAfterTheOther.respond(task: 2, index: second, with: CallOutcome.returned(0))
    #expect(!oneAfterTheOther.overlapped)
  }
}
