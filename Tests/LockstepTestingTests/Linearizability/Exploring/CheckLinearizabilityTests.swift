import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// A counter whose `increment` reads, awaits, then writes.
private actor RacyCounter {
  private var count = 0
  private let store = Store()

  func increment() async -> Int {
    let read = count
    await store.touch()
    count = read + 1
    return count
  }

  var value: Int { count }
}

private actor Store {
  func touch() {}
}

/// A correct counter.
private actor Counter {
  private var count = 0
  func increment() -> Int {
    count += 1
    return count
  }
}

/// A lock that `take` waits for until `give` is called: `take` never returns when called alone.
private actor Handoff {
  private var waiting: [CheckedContinuation<Int, Never>] = []
  func take() async -> Int { await withCheckedContinuation { waiting.append($0) } }
  func give() -> Int {
    guard !waiting.isEmpty else { return 0 }
    waiting.removeFirst().resume(returning: 1)
    return 1
  }
}

private let racyOperations: [LinearizabilityOperation<RacyCounter, Never>] = [
  .call("increment") { await $0.increment() }
]

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CheckLinearizabilityTests {
  @Test func aReportShowsTheCallsTheirResultsAndWhyNoOrderGivesThem() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(of: { RacyCounter() }, operations: racyOperations)
    }
    let issue = expectOneIssue(
      issues, containing: "found results that no order of the calls gives",
      "increment() → 1 | increment() → 1",
      "No order of these calls, one at a time, gives these results.",
      "returned 1, but would return 2 here.", "Replay it exactly with: .replay(\"C1.",
      "Timeline of the run:", "calls increment()")
    #expect(issue != nil)
    #expect(result.failure?.size == "2 tasks × 1 call")
  }

  @Test(arguments: [
    ExplorationStrategy.random(schedules: 100), .pct(schedules: 100, depth: 2),
    .exhaustive(maxPreemptions: 1),
  ])
  func everyStrategyFindsTheLostIncrement(strategy: ExplorationStrategy) async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(strategy, of: { RacyCounter() }, operations: racyOperations)
    }
    expectOneIssue(issues, containing: "increment() → 1 | increment() → 1")
    #expect(result.failure?.size == "2 tasks × 1 call")
  }

  @Test func shardsOfAnExhaustiveCheckRunTheUnshardedCheckBetweenThem() async {
    let operations: [LinearizabilityOperation<Counter, Never>] = [
      .call("increment") { await $0.increment() }
    ]
    let scenarios = ConcurrentScenarios.random(5, tasks: 2...3, callsPerTask: 1...2)
    let whole = await checkLinearizability(
      .exhaustive(maxPreemptions: 2), scenarios: scenarios, of: { Counter() },
      operations: operations)
    var sharded = 0
    for index in 1...3 {
      let shard = await withEnvironment(["LOCKSTEP_SHARD": "\(index)/3"]) {
        await checkLinearizability(
          .exhaustive(maxPreemptions: 2), scenarios: scenarios, of: { Counter() },
          operations: operations)
      }
      #expect(shard.failure == nil && shard.scenariosRun == 5)
      #expect(shard.schedulesRun < whole.schedulesRun, "a shard runs its part only")
      sharded += shard.schedulesRun
    }
    #expect(whole.failure == nil && whole.schedulesRun > 5)
    // Each shard also runs a few schedules of the others' subtrees to learn the tree's shape.
    #expect(sharded >= whole.schedulesRun, "\(sharded) of \(whole.schedulesRun)")
  }

  @Test func theTokenReplaysTheReportedScenarioAndSchedule() async {
    let (found, _) = await collectingIssues {
      await checkLinearizability(of: { RacyCounter() }, operations: racyOperations)
    }
    guard let token = found.failure?.token else {
      Issue.record("nothing found")
      return
    }
    let (replayed, issues) = await collectingIssues {
      await checkLinearizability(.replay(token), of: { RacyCounter() }, operations: racyOperations)
    }
    expectOneIssue(issues, containing: "increment() → 1 | increment() → 1")
    #expect(replayed.schedulesRun == 1 && replayed.failure?.token == token)
  }

  @Test func aModelIsTheSpecificationWhenGiven() async {
    // The correct counter checked against a model that counts by two: every result is wrong.
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        scenarios: .random(3), of: { Counter() }, model: 0,
        operations: [
          .call(
            "increment", { await $0.increment() },
            model: { count in
              count += 2
              return count
            })
        ])
    }
    expectOneIssue(issues, containing: "would return 2 here")
    #expect(result.failure?.isNotLinearizable == true)
  }

  @Test func aCorrectCounterPassesAgainstItsModelAndAlone() async {
    let (results, issues) = await collectingIssues {
      [
        await checkLinearizability(
          of: { Counter() }, model: 0,
          operations: [
            .call(
              "increment", { await $0.increment() },
              model: { count in
                count += 1
                return count
              })
          ]),
        await checkLinearizability(
          condition: .quiescentConsistency, of: { Counter() },
          operations: [.call("increment") { await $0.increment() }]),
      ]
    }
    expectIssues(issues, containing: [])
    #expect(results.allSatisfy { $0.failure == nil && $0.scenariosRun == 20 })
  }

  @Test func anInvariantThatFailsIsReportedWithTheCalls() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        of: { Counter() }, operations: [.call("increment") { await $0.increment() }],
        invariant: { counter in
          let count = await counter.increment()
          #expect(count < 3, "the count passed 2")
        })
    }
    expectOneIssue(issues, containing: "found a failing run", "the count passed 2", "The calls:")
    #expect(result.failure?.isNotLinearizable == false)
  }

  @Test func aCallThatNeverReturnsIsNamedInTheDeadlockReport() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        scenarios: .random(5, tasks: 1...1, callsPerTask: 1...1, callsBefore: 0...0, callsAfter: 0...0),
        of: { Handoff() }, model: 0,
        operations: [.call("take", { await $0.take() }, model: { _ in 1 })])
    }
    expectOneIssue(issues, containing: "Deadlock", "take() … never returned")
    #expect(result.failure?.size == "1 task × 1 call")
  }

  @Test func anObjectThatGivesOtherResultsAloneIsReportedNotJudged() async {
    let (result, issues) = await collectingIssues {
      await checkLinearizability(
        scenarios: .random(1, tasks: 2...2, callsPerTask: 1...1, callsBefore: 0...0, callsAfter: 0...0),
        of: { Drifting() }, operations: [.call("read") { $0.read() }])
    }
    expectOneIssue(issues, containing: "gave two results for the same calls", "model:")
    #expect(result.failure == nil)
  }

  @Test func aLongCheckShowsOneProgressLineForItsScenariosAndATimeBudgetBoundsIt() async {
    // Each run takes 10 ms of a clock the test moves: 40 scenarios × 10 runs would take 4 s.
    let now = Locked(Duration.zero)
    let written = Locked<[String]>([])
    let output = ProgressReporter.Output(mode: .lines) { text in written.withLock { $0.append(text) } }
    let (results, issues) = await collectingIssues {
      await ProgressReporter.$override.withValue(output) {
        await withClock(now) {
          [
            await checkLinearizability(
              .random(schedules: 10), scenarios: .random(40),
              of: {
                now.withLock { $0 += .milliseconds(10) }
                return Counter()
              }, operations: [.call("increment") { await $0.increment() }]),
            await checkLinearizability(
              .random(schedules: 10).forAtMost(.seconds(1)), scenarios: .random(40),
              of: {
                now.withLock { $0 += .milliseconds(10) }
                return Counter()
              }, operations: [.call("increment") { await $0.increment() }]),
          ]
        }
      }
    }
    expectIssues(issues, containing: [])
    let lines = written.value
    #expect(lines.count >= 2 && lines.allSatisfy { $0.contains("lockstep: checkLinearizability at ") })
    #expect(lines.contains { $0.contains(" of 40 scenarios") }, "\(lines)")
    #expect(results[0].scenariosRun == 40 && !results[0].ranOutOfTime)
    // The scenarios share the second: each runs fewer schedules, and the check says why.
    #expect(results[1].ranOutOfTime && results[1].schedulesRun < 200, "\(results[1])")
  }

  @Test func aCheckInsideADeterministicRunIsReportedAndNothingRuns() async throws {
    let (result, issues) = try await collectingIssues {
      try await withDeterministicScheduling {
        await checkLinearizability(
          of: { Counter() }, operations: [.call("increment") { await $0.increment() }])
      }
    }
    expectOneIssue(issues, containing: "cannot run inside another deterministic run")
    #expect(result.scenariosRun == 0)
  }

  @Test func misuseIsReportedAndNothingRuns() async {
    let (results, issues) = await collectingIssues {
      [
        await checkLinearizability(of: { Counter() }, operations: []),
        await checkLinearizability(
          scenarios: .random(0, tasks: 0...2), of: { Counter() },
          operations: [.call("increment") { await $0.increment() }]),
        await checkLinearizability(
          .replay("L2.AQAIAkRVAgAA-vMU9srOaw"), of: { Counter() },
          operations: [.call("increment") { await $0.increment() }]),
        await checkLinearizability(
          of: { Counter() },
          operations: [.call("add", with: [Int]()) { counter, _ in await counter.increment() }]),
        await checkLinearizability(
          maxSteps: 0, of: { Counter() }, operations: [.call("increment") { await $0.increment() }]),
      ]
    }
    expectIssues(
      issues,
      containing: [
        "operations: give at least one operation", "count: 0 must be at least 1",
        "is not a token of checkLinearizability", "add has no arguments to pick from",
        "maxSteps: 0 must be at least 1",
      ])
    #expect(results.allSatisfy { $0.scenariosRun == 0 })
  }
}
