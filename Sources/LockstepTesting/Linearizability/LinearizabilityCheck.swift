/// The arguments of one `checkLinearizability` call, whichever the mode, and what both modes make
/// of them: the problems with the scenarios and operations, and the judge of a scenario's runs.
struct LinearizabilityCheck<Object: Sendable, Model: Hashable & Sendable>: Sendable {
  let scenarios: ConcurrentScenarios
  let condition: ConsistencyCondition
  /// The most jobs a run may take under the scheduler; `nil` when left out.
  let maxSteps: Int?
  /// The real-time bound of each run, as given.
  let timeout: Duration
  let site: CallSite
  let make: @Sendable () async -> Object
  let operations: [LinearizabilityOperation<Object, Model>]
  let invariant: (@Sendable (Object) async throws -> Void)?
  /// The model's initial state; `nil` when the object itself is the specification.
  let model: Model?

  /// What is wrong with the scenarios and the operations.
  var problems: [String] {
    var problems: [String] = []
    if let problem = scenarios.problem { problems.append("scenarios: \(problem)") }
    if operations.isEmpty { problems.append("operations: give at least one operation") }
    for operation in operations where operation.argumentCount == 0 {
      problems.append("operations: \(operation.name) has no arguments to pick from (with: [])")
    }
    return problems
  }

  /// Scenario `index` of the generated scenarios.
  func scenario(_ index: Int) -> Scenario {
    scenarios.scenario(index, argumentCounts: operations.map(\.argumentCount))
  }

  /// The judge of the runs of `scenario`, against the model, or else the object alone as `replays`
  /// learns it.
  func judge(_ scenario: Scenario, _ replays: SequentialReplays<Object, Model>) -> RunJudge<Object, Model> {
    let specification: RunJudge<Object, Model>.Specification
    if let model {
      let operations = operations
      specification = .model(
        SequentialSpecification(initial: model) { state, call in
          operations[call.operation].model?(&state, call.argument) ?? .unknown
        })
    } else {
      specification = .object(replays)
    }
    return RunJudge(
      scenario: scenario, operations: operations, condition: condition, specification: specification)
  }
}

extension LinearizabilityCheck: _LinearizabilityCheck {
  nonisolated(nonsending) func _explore(_ strategy: ExplorationStrategy) async -> LinearizabilityResult {
    await LinearizabilityExploration(self).perform(strategy)
  }

  nonisolated(nonsending) func _stress(_ mode: StressMode) async -> LinearizabilityStressResult {
    await LinearizabilityStress(self, mode: mode, environment: StressCount.current).perform()
  }
}
