/// Judges each run of one scenario: whether some order of its calls, one at a time, gives the
/// results the run recorded, against the operations' model or the object itself.
final class RunJudge<Object: Sendable, Model: Hashable & Sendable>: @unchecked Sendable {
  // One exploration uses it at a time, from its loop.

  /// What the results are compared with.
  enum Specification {
    case model(SequentialSpecification<Model, ScenarioCall, CallOutcome>)
    case object(SequentialReplays<Object, Model>)
  }

  /// The first line of the failure a judge adds: what tells a run that no order explains.
  static var notLinearizable: String { "No order of these calls, one at a time, gives these results." }

  let scenario: Scenario
  let operations: [LinearizabilityOperation<Object, Model>]
  let condition: ConsistencyCondition
  let specification: Specification
  /// A problem with the operations found while learning what the object does alone: reported
  /// once, after the exploration; later runs are not judged.
  private(set) var problem: String?
  /// The histories found linearizable so far, by the shape of their calls (who called what, and
  /// where it began and returned): the results of each. Many schedules give one history; it is
  /// checked once.
  private var explained: [[Int]: [[CallOutcome?]]] = [:]

  /// The calls of the last run judged.
  private var lastHistory = History<ScenarioCall, CallOutcome>()

  /// The table of the last run judged.
  var lastTable: String {
    ScenarioTable(scenario: scenario, history: lastHistory, text: text).description
  }

  init(
    scenario: Scenario, operations: [LinearizabilityOperation<Object, Model>],
    condition: ConsistencyCondition, specification: Specification
  ) {
    self.scenario = scenario
    self.operations = operations
    self.condition = condition
    self.specification = specification
  }

  /// Judges the calls of one run, `history`: `nil` when some order of them explains their
  /// results, or when the run `failedAlready` (an invariant, a thrown error), the table of its calls.
  func judge(_ history: History<ScenarioCall, CallOutcome>, failedAlready: Bool) async
    -> ScheduleVerdict?
  {
    let table = ScenarioTable(scenario: scenario, history: history, text: text)
    lastHistory = history
    if failedAlready { return ScheduleVerdict(failure: "The calls:\n\(table.description)", key: nil) }
    guard problem == nil else { return nil }
    let shape = history.calls.flatMap { call in
      [
        call.task, call.operation.operation, call.operation.argument, call.invocation,
        call.response?.position ?? -1,
      ]
    }
    let outcomes = history.calls.map { $0.response?.outcome }
    if explained[shape]?.contains(outcomes) == true { return nil }
    let explanation: String?
    switch specification {
    case .model(let model):
      explanation = explain(history, against: model, table: table)
    case .object(let replays):
      // Most runs are explained by the order in which their calls returned: learn what the
      // object does alone along it first, in one run, before the search asks call by call.
      let returned = history.calls.compactMap { call in call.response.map { ($0.position, call) } }
        .sorted { $0.0 < $1.0 }.map(\.1.operation)
      if !replays.knows(returned), let problem = await replays.learn([returned]) {
        self.problem = problem
        return nil
      }
      var found: String?
      while true {
        found = explain(history, against: replays.specification, table: table)
        guard found != nil, replays.isMissingSome else { break }
        if let problem = await replays.learnMissing() {
          self.problem = problem
          return nil
        }
      }
      explanation = found
    }
    guard let explanation else {
      explained[shape, default: []].append(outcomes)
      return nil
    }
    return ScheduleVerdict(
      failure: "\(Self.notLinearizable)\n\(table.description)\n\(explanation)",
      key: Self.notLinearizable)
  }

  private func text(_ call: ScenarioCall) -> String {
    operations[call.operation].text(argument: call.argument)
  }

  /// `nil` when `history` is linearizable against `specification`; otherwise the longest order
  /// that gives the recorded results, and what each call that could go next would give instead.
  private func explain<State: Hashable>(
    _ history: History<ScenarioCall, CallOutcome>,
    against specification: SequentialSpecification<State, ScenarioCall, CallOutcome>,
    table: ScenarioTable
  ) -> String? {
    let verdict = LinearizabilityJudge(specification, condition: condition).judge(history)
    guard case .notLinearizable(let closest) = verdict else { return nil }
    var state = specification.initial
    for id in closest { _ = specification.apply(&state, history.calls[id].operation) }
    let ordered = condition == .quiescentConsistency ? history.quiescentlyOrdered() : history
    let done = Set(closest)
    let left = ordered.calls.filter { !done.contains($0.id) }
    let earliest = left.compactMap { $0.response?.position }.min() ?? .max
    let next = left.filter { $0.invocation <= earliest && !$0.isPending }
    func label(_ id: Int) -> String { "\(table.maker(of: id)): \(text(history.calls[id].operation))" }
    var lines: [String] = []
    if closest.isEmpty {
      lines.append("No call gives its result first:")
    } else {
      let order = closest.map { id in
        label(id) + (history.calls[id].response.map { " → \($0.outcome)" } ?? "")
      }
      lines.append("The longest order that gives the results: \(order.joined(separator: ", ")).")
      lines.append("After it, no call gives its result:")
    }
    for call in next {
      var after = state
      let would = specification.apply(&after, call.operation)
      let recorded = call.response.map { $0.outcome.statement(would: false) } ?? ""
      lines.append("  \(label(call.id)) \(recorded), but \(would.statement(would: true)) here.")
    }
    if condition == .quiescentConsistency {
      lines.append(
        "(Quiescent consistency: calls between two moments with no call in flight may go in any order.)")
    }
    return lines.joined(separator: "\n")
  }
}

/// Whether the runs of a check's scenarios are judged: always, except where the benchmark runs a
/// check without its verdicts, to tell what judging costs beside the runs themselves.
package enum RunJudging {
  @TaskLocal package static var isSkipped = false
}
