/// The calls of one run of a scenario as they happen, numbered in the one order in which the run's
/// jobs made and finished them: a call precedes another when it returned before the other began.
final class CallRecorder: Sendable {
  private struct State {
    var history = History<ScenarioCall, CallOutcome>()
    var clock = 0
  }

  private let state = Locked(State())

  /// The calls recorded since the last ``reset()``.
  var history: History<ScenarioCall, CallOutcome> { state.withLock { $0.history } }

  func reset() { state.withLock { $0 = State() } }

  /// Records that `task` (0 before and after the tasks) began `call`; returns the call's id.
  func invoke(_ call: ScenarioCall, task: Int) -> Int {
    state.withLock { state in
      state.clock += 1
      return state.history.invoke(call, task: task, at: state.clock)
    }
  }

  /// Records that call `id` returned `outcome`.
  func respond(to id: Int, with outcome: CallOutcome) {
    state.withLock { state in
      state.clock += 1
      state.history.respond(to: id, with: outcome, at: state.clock)
    }
  }
}
