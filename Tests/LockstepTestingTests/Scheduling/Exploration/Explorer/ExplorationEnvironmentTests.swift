import LockstepTestSupport
import Testing

@testable import LockstepTesting

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ExplorationEnvironmentTests {
  @Test func noVariablesChangeNothing() {
    let environment = ExplorationEnvironment([:])
    #expect(environment == ExplorationEnvironment())
    #expect(environment.scale == 1 && environment.extraPreemptions == 0)
    #expect(environment.timeBudget == nil && environment.shard == nil && environment.problems.isEmpty)
    #expect(ExplorationEnvironment(["LOCKSTEP_EXPLORE_SCALE": " ", "LOCKSTEP_SHARD": ""]).problems.isEmpty)
  }

  @Test func goodValuesAreRead() {
    let environment = ExplorationEnvironment([
      "LOCKSTEP_EXPLORE_SCALE": "100", "LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS": "1",
      "LOCKSTEP_EXPLORE_TIME": "5m", "LOCKSTEP_SHARD": "2/4", "LOCKSTEP_SEED": "7",
    ])
    #expect(environment.problems.isEmpty)
    #expect(environment.scale == 100)
    #expect(environment.extraPreemptions == 1)
    #expect(environment.timeBudget == .seconds(300))
    #expect(environment.shard == ExplorationShard(index: 2, count: 4))
    #expect(environment.shard?.description == "2/4")
  }

  @Test(arguments: [
    ("90s", Duration.seconds(90)), ("90", .seconds(90)), ("1.5m", .seconds(90)), ("2h", .seconds(7_200)),
    ("500ms", .milliseconds(500)), ("0.25 s", .milliseconds(250)),
  ])
  func durationsAreReadWithTheirUnit(_ text: String, _ duration: Duration) {
    #expect(ExplorationEnvironment.duration(text) == duration)
  }

  @Test(arguments: [
    ("LOCKSTEP_EXPLORE_SCALE", "abc"), ("LOCKSTEP_EXPLORE_SCALE", "0"), ("LOCKSTEP_EXPLORE_SCALE", "-2"),
    ("LOCKSTEP_EXPLORE_SCALE", "inf"), ("LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS", "-1"),
    ("LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS", "1.5"), ("LOCKSTEP_EXPLORE_TIME", "soon"),
    ("LOCKSTEP_EXPLORE_TIME", "0s"), ("LOCKSTEP_EXPLORE_TIME", "5 minutes"), ("LOCKSTEP_SHARD", "3"),
    ("LOCKSTEP_SHARD", "0/4"), ("LOCKSTEP_SHARD", "5/4"), ("LOCKSTEP_SHARD", "1/0"),
    ("LOCKSTEP_SHARD", "a/b"), ("LOCKSTEP_SEED", "seven"),
  ])
  func aBadValueIsAProblemNamingTheVariableAndItsValue(_ variable: String, _ value: String) {
    let environment = ExplorationEnvironment([variable: value])
    #expect(environment.problems.count == 1)
    #expect(
      environment.problems.first?.hasPrefix("\(variable)=\(value) is not") == true, "\(environment.problems)")
    // Nothing of a bad value is used.
    #expect(environment.scale == 1 && environment.extraPreemptions == 0)
    #expect(environment.timeBudget == nil && environment.shard == nil)
  }

  @Test func theScaleMultipliesSchedulesAndLimitsButNotThePreemptionBound() {
    let environment = ExplorationEnvironment(["LOCKSTEP_EXPLORE_SCALE": "100"])
    #expect(
      ExplorationStrategy.random(schedules: 200, seed: 1).applying(environment).description
        == "random(schedules: 20000, seed: 1)")
    #expect(
      ExplorationStrategy.pct(schedules: 200, depth: 2, seed: 1).applying(environment).description
        == "pct(schedules: 20000, depth: 2, seed: 1)")
    #expect(
      ExplorationStrategy.exhaustive(maxPreemptions: 2, limit: 300).applying(environment).description
        == "exhaustive(maxPreemptions: 2, limit: 30000)")
    #expect(
      ExplorationStrategy.replay("L2.AAAAAgA").applying(environment).description
        == ExplorationStrategy.replay("L2.AAAAAgA").description)
    // A fraction rounds up and never reaches zero.
    let half = ExplorationEnvironment(["LOCKSTEP_EXPLORE_SCALE": "0.5"])
    #expect(
      ExplorationStrategy.random(schedules: 3, seed: 1).applying(half).description
        == "random(schedules: 2, seed: 1)")
    #expect(half.scaled(1) == 1)
    #expect(environment.scaled(Int.max) == Int.max / 2, "no overflow")
  }

  @Test func extraPreemptionsRaiseOnlyTheExhaustiveBound() {
    let environment = ExplorationEnvironment(["LOCKSTEP_EXPLORE_EXTRA_PREEMPTIONS": "1"])
    #expect(
      ExplorationStrategy.exhaustive(maxPreemptions: 2, limit: 300).applying(environment).description
        == "exhaustive(maxPreemptions: 3, limit: 300)")
    #expect(
      ExplorationStrategy.pct(schedules: 5, depth: 2, seed: 1).applying(environment).description
        == "pct(schedules: 5, depth: 2, seed: 1)")
  }

  @Test func theShorterTimeBudgetCounts() {
    let environment = ExplorationEnvironment(["LOCKSTEP_EXPLORE_TIME": "5s"])
    #expect(ExplorationStrategy.random(schedules: 5, seed: 1).applying(environment).timeBudget == .seconds(5))
    let shorter = ExplorationStrategy.random(schedules: 5, seed: 1).forAtMost(.seconds(2))
    #expect(shorter.applying(environment).timeBudget == .seconds(2))
    #expect(shorter.forAtMost(.seconds(9)).timeBudget == .seconds(2))
    #expect(shorter.description == "random(schedules: 5, seed: 1).forAtMost(.seconds(2))")
    #expect(
      ExplorationStrategy.random(schedules: 5, seed: 1).forAtMost(.milliseconds(1_500)).description
        == "random(schedules: 5, seed: 1).forAtMost(.milliseconds(1500))")
  }

  @Test func theSetupNamesWhatTheEnvironmentChanged() {
    let environment = ExplorationEnvironment([
      "LOCKSTEP_EXPLORE_SCALE": "10", "LOCKSTEP_EXPLORE_TIME": "1m", "LOCKSTEP_SHARD": "2/3",
    ])
    let setup = ExplorationSetup(
      strategy: .random(schedules: 50, seed: 4), pinned: [], environment: environment)
    #expect(
      setup.title
        == "random(schedules: 50, seed: 4), run as random(schedules: 500, seed: 4).forAtMost(.seconds(60)) "
        + "by LOCKSTEP_EXPLORE_SCALE=10 and LOCKSTEP_EXPLORE_TIME=1m, in shard 2/3 (LOCKSTEP_SHARD)")
    #expect(setup.shard == ExplorationShard(index: 2, count: 3))
    // A replay runs its one schedule, the same in every shard.
    let replay = ExplorationSetup(strategy: .replay("L2.AAAAAgA"), pinned: [], environment: environment)
    #expect(replay.shard == nil && replay.title == replay.strategy.description)
    #expect(
      ExplorationSetup(strategy: .random(), pinned: [], environment: .init()).title
        == ExplorationStrategy.random().description)
  }
}
