/// Where a replay stopped following the schedule its token recorded, and the likely cause: in
/// ``ExplorationResult/divergence`` for a ``ExplorationStrategy/replay(_:)-(String)``, and in
/// ``ExplorationFailure/divergence`` for the replay `explore` runs before it reports a failure.
/// See <doc:FindingRaces#Replay-the-failure>.
///
/// ```swift
/// let replay = await explore(.replay("L2.AQAIAkRVAgAA-vMU9srOaw")) { try await broadcast() }
/// if let divergence = replay.divergence {
///   print(divergence)   // "It left the recorded schedule at choice point 2 (step 9): …"
/// }
/// ```
public struct ReplayDivergence: Sendable, Equatable, CustomStringConvertible {
  /// The choice point, from 1, where a different number of jobs was ready or the token's choice
  /// ran another task; `nil` when every recorded choice point matched.
  public let choicePoint: Int?
  /// The step of that choice point, from 1 as in the run's timeline; `nil` when not known.
  public let step: Int?
  /// What differed, in words.
  public let difference: String
  /// Whether hashing was deterministic in the process that replayed (`SWIFT_DETERMINISTIC_HASHING`).
  public let hashingIsDeterministic: Bool

  /// A divergence at the choice point and step with these indices, from 0 as the scheduler
  /// counts them (`nil`: not at one); it numbers them from 1, as reports do.
  init(
    pointIndex: Int?, stepIndex: Int?, _ difference: String,
    hashingIsDeterministic: Bool = HashingDeterminism.isDeterministic
  ) {
    choicePoint = pointIndex.map { $0 + 1 }
    step = stepIndex.map { $0 + 1 }
    self.difference = difference
    self.hashingIsDeterministic = hashingIsDeterministic
  }

  /// The likely cause, and what to do about it.
  public var likelyCause: String {
    if !hashingIsDeterministic {
      return "Likely cause: hashing is not deterministic in this process: \(HashingDeterminism.why)"
    }
    return "Likely cause: the code under test changed since the token was recorded, or it depends "
      + "on something the scheduler does not control: the real clock, other threads, real I/O, or "
      + "the order of a Set or Dictionary whose keys hash by address (ObjectIdentifier, object "
      + "identity). Explore again to get a new token."
  }

  /// Where, what, and the likely cause.
  public var description: String {
    var place = ""
    if let choicePoint {
      place = " at choice point \(choicePoint)" + (step.map { " (step \($0))" } ?? "")
    }
    return "It left the recorded schedule\(place): \(difference). \(likelyCause)"
  }
}
