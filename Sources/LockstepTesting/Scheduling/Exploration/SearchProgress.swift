/// How far an exhaustive search (``ExplorationStrategy/exhaustive(maxPreemptions:limit:)``) got
/// when its `limit` or its time budget stopped it before the end: what is left of its search
/// tree, counted exactly from the last schedule that ran, and an estimate of the whole. See
/// <doc:FindingRaces#How-big-the-search-is>.
///
/// ```swift
/// let result = await explore(.exhaustive(maxPreemptions: 1, limit: 2_000)) { await check() }
/// if let progress = result.progress {
///   print("at least \(progress.subtreesLeft) more schedules, about \(progress.estimatedSchedules)")
/// }
/// ```
public struct SearchProgress: Sendable, Equatable, CustomStringConvertible {
  /// For each choice point of the last schedule that ran, first to last, how many of its ready
  /// jobs the search has still to try there: each is the root of a subtree not searched yet.
  public let untriedByDepth: [Int]
  /// How many more times the whole search runs after the current one, each with a cancellation
  /// at another Lockstep wait; zero without cancellation injection.
  public let passesLeft: Int
  /// An estimate of how many schedules the whole search has, those run included; exact when
  /// nothing is left, an order of magnitude otherwise.
  public let estimatedSchedules: Int

  /// At least this many schedules are left: one for each untried subtree (the sum of
  /// ``untriedByDepth``), and one for each pass left.
  public var subtreesLeft: Int { untriedByDepth.reduce(0, +) + passesLeft }

  /// `at least 37 more schedule(s): 37 untried subtree(s) left; an estimated 2.3 million in all`.
  public var description: String {
    let subtrees = untriedByDepth.reduce(0, +)
    var text = "at least \(subtreesLeft) more schedule(s): \(subtrees) untried subtree(s)"
    if passesLeft > 0 { text += " and \(passesLeft) cancellation pass(es)" }
    return text + " left; an estimated \(Self.roughly(estimatedSchedules)) in all"
  }

  init(untriedByDepth: [Int], passesLeft: Int, estimatedSchedules: Int) {
    self.untriedByDepth = untriedByDepth
    self.passesLeft = passesLeft
    self.estimatedSchedules = estimatedSchedules
  }

  /// A count as people say it: `37`, `48,000`, `2.3 million`.
  static func roughly(_ count: Int) -> String {
    if count >= 1_000_000_000 {
      return "\(oneDecimal(Double(count) / 1e9)) billion"
    }
    if count >= 1_000_000 { return "\(oneDecimal(Double(count) / 1e6)) million" }
    guard count >= 10_000 else { return "\(count)" }
    let thousands = (count + 500) / 1000
    return "\(thousands),000"
  }

  private static func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
  }
}
