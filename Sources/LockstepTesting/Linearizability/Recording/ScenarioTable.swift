/// A scenario's calls and what each gave back, as a report prints them: a column a task, the calls
/// before and after on lines of their own.
///
/// ```
///   caller 1             | caller 2
///   withdraw(80) → 20    | withdraw(80) → 20
///   after: balance() → -60
/// ```
struct ScenarioTable {
  let scenario: Scenario
  let history: History<ScenarioCall, CallOutcome>
  /// `withdraw(80)` for a call.
  let text: (ScenarioCall) -> String

  /// Each task's calls in the history, in order (task 0: before, then after).
  private var callsByTask: [Int: [History<ScenarioCall, CallOutcome>.Call]] {
    Dictionary(grouping: history.calls, by: \.task)
  }

  /// What the `index`-th call of `task` gave back, or that it never returned or never began.
  private func cell(_ call: ScenarioCall, task: Int, index: Int) -> String {
    guard let recorded = callsByTask[task], index < recorded.count else {
      return "\(text(call)) (not called)"
    }
    guard let response = recorded[index].response else { return "\(text(call)) … never returned" }
    return "\(text(call)) → \(response.outcome)"
  }

  /// Who made call `id` of the history: `caller 2`, `before`, `after`.
  func maker(of id: Int) -> String {
    let call = history.calls[id]
    if call.task > 0 { return "caller \(call.task)" }
    let index = history.calls[..<id].count { $0.task == 0 }
    return index < scenario.before.count ? "before" : "after"
  }

  var description: String {
    var lines: [String] = []
    for (index, call) in scenario.before.enumerated() {
      lines.append("before: " + cell(call, task: 0, index: index))
    }
    let columns = scenario.tasks.enumerated().map { task, calls in
      ["caller \(task + 1)"] + calls.enumerated().map { cell($1, task: task + 1, index: $0) }
    }
    let widths = columns.map { $0.map(\.count).max() ?? 0 }
    for row in 0..<(columns.map(\.count).max() ?? 0) {
      let cells = columns.indices.map { column in
        let cell = row < columns[column].count ? columns[column][row] : ""
        return column == columns.count - 1
          ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
      }
      lines.append(cells.joined(separator: " | ").trimmingTrailingSpaces)
    }
    for (index, call) in scenario.after.enumerated() {
      lines.append("after: " + cell(call, task: 0, index: scenario.before.count + index))
    }
    return lines.map { "  " + $0 }.joined(separator: "\n")
  }
}

extension String {
  fileprivate var trimmingTrailingSpaces: String {
    String(reversed().drop { $0 == " " }.reversed())
  }
}
