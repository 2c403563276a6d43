import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ConcurrentScenariosTests {
  @Test func scenariosDependOnlyOnTheSeedAndStayWithinTheirSizes() {
    let scenarios = ConcurrentScenarios.random(
      50, tasks: 2...3, callsPerTask: 1...3, callsBefore: 0...1, callsAfter: 0...2, seed: 9)
    let made = (0..<50).map { scenarios.scenario($0, argumentCounts: [1, 3]) }
    #expect(made == (0..<50).map { scenarios.scenario($0, argumentCounts: [1, 3]) })
    #expect(Set(made).count > 40)
    for scenario in made {
      #expect((2...3).contains(scenario.tasks.count))
      #expect(scenario.tasks.allSatisfy { (1...3).contains($0.count) })
      #expect(scenario.before.count <= 1 && scenario.after.count <= 2)
      let calls = scenario.before + scenario.tasks.flatMap { $0 } + scenario.after
      #expect(calls.allSatisfy { $0.argument < [1, 3][$0.operation] })
    }
  }

  @Test func aScenarioTokenReadsBackTheScenario() {
    let scenario = Scenario(
      before: [ScenarioCall(operation: 1, argument: 200)],
      tasks: [[ScenarioCall(operation: 0, argument: 0)], [ScenarioCall(operation: 2, argument: 1)]],
      after: [])
    let text = ScenarioCodec.encode(scenario)
    #expect(text.hasPrefix("C1."))
    #expect(ScenarioCodec.decode(text[...]) == scenario)
    #expect(ScenarioCodec.decode("C1.AAA") == nil)
    #expect(ScenarioCodec.decode("L2.AQAIAkRVAgAA") == nil)
  }

  @Test func smallerScenariosHaveOneTaskOrOneCallFewer() {
    let call = ScenarioCall(operation: 0, argument: 0)
    let scenario = Scenario(before: [call], tasks: [[call, call], [call]], after: [call])
    let smaller = scenario.smaller
    #expect(smaller.allSatisfy { $0.callCount == scenario.callCount - 1 || $0.tasks.count == 1 })
    #expect(smaller.allSatisfy { $0.tasks.allSatisfy { !$0.isEmpty } })
    #expect(smaller.count == 2 + 1 + 1 + 2)
  }
}
