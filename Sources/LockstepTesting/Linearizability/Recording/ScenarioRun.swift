/// One run of a scenario on a fresh object: the calls before, the tasks calling at once, the calls
/// after, then the invariant; every call recorded, and noted on the run's timeline.
struct ScenarioRun<Object: Sendable, Model: Hashable & Sendable>: Sendable {
  let scenario: Scenario
  let operations: [LinearizabilityOperation<Object, Model>]
  let make: @Sendable () async -> Object
  let invariant: (@Sendable (Object) async throws -> Void)?
  let recorder: CallRecorder
  /// Where the check was called: the tasks of the scenario are said to be created there.
  let site: CallSite

  func run() async throws {
    recorder.reset()
    let object = await make()
    for call in scenario.before { await perform(call, by: 0, on: object) }
    var tasks: [Task<Void, Never>] = []
    for (index, calls) in scenario.tasks.enumerated() {
      let task = Task {
        for call in calls { await perform(call, by: index + 1, on: object) }
      }
      CurrentRun.noteCreated(task, name: "caller \(index + 1)", site: site)
      tasks.append(task)
    }
    for task in tasks { await task.value }
    for call in scenario.after { await perform(call, by: 0, on: object) }
    try await invariant?(object)
  }

  private func perform(_ call: ScenarioCall, by task: Int, on object: Object) async {
    let operation = operations[call.operation]
    CurrentRun.note("calls \(operation.text(argument: call.argument))")
    let id = recorder.invoke(call, task: task)
    let outcome = await operation.perform(object, call.argument)
    recorder.respond(to: id, with: outcome)
    CurrentRun.note("\(operation.text(argument: call.argument)) → \(outcome)")
  }
}
