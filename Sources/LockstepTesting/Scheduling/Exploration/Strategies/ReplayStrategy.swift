/// ``ExplorationStrategy/replay(_:)-(String)``: exactly the schedule of a token, once, checked
/// against what the token recorded (the explorer reports where it diverged, if it did); a reported
/// misuse when the text is not a token.
struct ReplayStrategy: ScheduleStrategy {
  let token: ReplayToken?
  /// The token as the user wrote it.
  let text: String

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
        picker: GuidedPicker(replaying: token), cancelAtWait: token.cancelAtWait, replaying: token))
  }
}
