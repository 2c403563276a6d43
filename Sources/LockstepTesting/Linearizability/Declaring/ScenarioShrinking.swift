/// What shrinking makes of one smaller scenario it tried.
enum ShrinkStep<Found> {
  /// It fails the same way: shrinking goes on from it.
  case keep(Found)
  /// It does not: shrinking tries the next one.
  case skip
  /// Shrinking ends with what it kept so far.
  case stop
}

extension Scenario {
  /// The smallest scenario found that still fails as `found` does: one of ``smaller`` at a time,
  /// each kept one shrunk again, within `budget` tries; `tick` hears the count before each try.
  static func shrink<Found>(
    _ found: Found, scenario: KeyPath<Found, Scenario>, budget: Int, tick: (Int) -> Void,
    trying attempt: (Scenario) async throws -> ShrinkStep<Found>
  ) async rethrows -> (Found, tried: Int) {
    var best = found
    var tried = 0
    var shrinking = true
    while shrinking {
      shrinking = false
      for candidate in best[keyPath: scenario].smaller {
        guard tried < budget else { return (best, tried) }
        tried += 1
        tick(tried)
        switch try await attempt(candidate) {
        case .skip: continue
        case .stop: return (best, tried)
        case .keep(let smaller): best = smaller
        }
        // Shrinks again, from the one kept.
        shrinking = true
        break
      }
    }
    return (best, tried)
  }
}
