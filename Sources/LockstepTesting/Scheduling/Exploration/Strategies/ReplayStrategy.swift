/// ``ExplorationStrategy/replay(_:)-(String)``: exactly the schedule of a token, once, checked
/// against what the token recorded (the explorer reports where it diverged, if it did); a reported
/// misuse when the text is not a token. For ``ExplorationStrategy/replayUpToCrash(_:atStep:)``,
/// the run stops before the step that crashed.
struct ReplayStrategy: ScheduleStrategy {
  let token: ReplayToken?
  /// The token as the user wrote it.
  let text: String
  /// The step that crashed the process in the recorded run, to stop before; `nil` for a replay.
  var crashStep: Int? = nil

  var shrinksFailures: Bool { false }

  mutating func next(after previous: ScheduleReport?) -> StrategyStep {
    guard let token else {
      return .done(
        complete: false,
        misuse: "\"\(text)\" is not a replay token; copy the token an exploration printed.")
    }
    guard previous == nil else { return .done(complete: true) }
    return .run(
      PlannedSchedule(
        picker: GuidedPicker(replaying: token), cancelAtWait: token.cancelAtWait, replaying: token,
        stopBeforeStep: crashStep))
  }
}
