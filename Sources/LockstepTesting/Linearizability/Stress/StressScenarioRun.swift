/// One stress run of a scenario on real threads: a fresh object, the calls before, one plain task
/// a column of the scenario, released together by a barrier, the calls after once they are all
/// done, then the invariant; every call's start and return recorded in a ``StressCallLog``.
struct StressScenarioRun<Object: Sendable, Model: Hashable & Sendable>: Sendable {
  let scenario: Scenario
  let operations: [LinearizabilityOperation<Object, Model>]
  let make: @Sendable () async -> Object
  let invariant: (@Sendable (Object) async throws -> Void)?

  /// Runs the scenario once, recording into `log`; returns what the invariant threw, if it threw.
  func run(_ log: StressCallLog) async -> (any Error)? {
    let object = await make()
    for call in scenario.before { await perform(call, by: 0, on: object, log) }
    let barrier = StartBarrier(parties: scenario.tasks.count)
    let tasks = scenario.tasks.enumerated().map { index, calls in
      Task {
        await barrier.arrive()
        for call in calls { await perform(call, by: index + 1, on: object, log) }
      }
    }
    for task in tasks { await task.value }
    for call in scenario.after { await perform(call, by: 0, on: object, log) }
    do {
      try await invariant?(object)
      return nil
    } catch {
      return error
    }
  }

  private func perform(_ call: ScenarioCall, by task: Int, on object: Object, _ log: StressCallLog)
    async
  {
    let index = log.invoke(call, task: task)
    let outcome = await operations[call.operation].perform(object, call.argument)
    log.respond(task: task, index: index, with: outcome)
  }
}
