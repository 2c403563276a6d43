/// ``ExplorationStrategy/replay(_:)-(String)``: exactly the schedule of a token, once, and a
/// reported misuse when the token is not one or the run took another path than the token's.
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
    guard let previous else {
      return .run(
        PlannedSchedule(picker: GuidedPicker(plan: token.choices), cancelAtWait: token.cancelAtWait))
    }
    guard previous.diverged || previous.record.choices != token.choices else {
      return .done(complete: true)
    }
    return .done(
      complete: true,
      misuse: "The replay token \(token) does not fit this body any more: the run took another path "
        + "(\(previous.record.points.count) choice points instead of \(token.choices.count)). "
        + "Did the code under test change? Explore again to get a new token.")
  }
}
