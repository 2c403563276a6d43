/// Where a replay stopped following the schedule its token recorded, and the likely cause.
///
/// A token replays its schedule exactly as long as the body does the same thing given the same
/// choices. When it does not — the code under test changed, or it iterates a `Set` or a
/// `Dictionary` and hashing is not deterministic in the process — the replay says so instead of
/// running another schedule in silence: ``ExplorationResult/divergence`` for a
/// ``ExplorationStrategy/replay(_:)-(String)``, and ``ExplorationFailure/divergence`` for the
/// replay `explore` runs before it reports a failure.
///
/// ```swift
/// let replay = await explore(.replay("L2.AQAIAkRVAgAA-vMU9srOaw")) { try await broadcast() }
/// if let divergence = replay.divergence {
///   print(divergence)   // "It left the recorded schedule at choice point 2 (step 9): …"
/// }
/// ```
public struct ReplayDivergence: Sendable, Equatable, CustomStringConvertible {
  /// The choice point, from 1, at which the run stopped following the token: the first point
  /// where a different number of jobs was ready, or where the token's choice ran another task.
  /// `nil` when every recorded choice point matched and the run differed after them.
  ///
  /// ```swift
  /// if let point = divergence.choicePoint { print("diverged at choice point \(point)") }
  /// ```
  public let choicePoint: Int?
  /// The step of that choice point, numbered from 1 as in the run's timeline; `nil` when it is
  /// not known.
  ///
  /// ```swift
  /// if let step = divergence.step { print("step \(step) of the timeline") }
  /// ```
  public let step: Int?
  /// What differed, in words.
  ///
  /// ```swift
  /// print(divergence.difference)   // "3 jobs were ready where the recorded schedule had 2"
  /// ```
  public let difference: String
  /// Whether hashing was deterministic in the process that replayed (`SWIFT_DETERMINISTIC_HASHING`
  /// was set when it started). When it was not, the likely cause is a `Set` or `Dictionary`.
  ///
  /// ```swift
  /// #expect(divergence.hashingIsDeterministic)
  /// ```
  public let hashingIsDeterministic: Bool

  /// The likely cause, and what to do about it.
  ///
  /// ```swift
  /// print(divergence.likelyCause)
  /// ```
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
  ///
  /// ```swift
  /// print(divergence)   // "It left the recorded schedule at choice point 2 (step 9): …"
  /// ```
  public var description: String {
    var place = ""
    if let choicePoint {
      place = " at choice point \(choicePoint)" + (step.map { " (step \($0))" } ?? "")
    }
    return "It left the recorded schedule\(place): \(difference). \(likelyCause)"
  }
}
