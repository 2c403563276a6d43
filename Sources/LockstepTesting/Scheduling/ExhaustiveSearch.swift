/// The depth-first enumeration behind ``ExplorationStrategy/exhaustive(maxPreemptions:limit:)``,
/// as a pure function of the schedule that just ran.
///
/// Each schedule follows a plan (the choices of a prefix) and then the default choice at every
/// later choice point. At every point the alternatives are tried in a fixed order — the default
/// first, then the others oldest first — so the next schedule is found by backtracking to the
/// deepest point that still has an untried alternative within the preemption bound.
enum ExhaustiveSearch {
  /// The plan of the next schedule after the one recorded, or `nil` when every schedule within
  /// the bound has run.
  static func nextPlan(after record: ScheduleRecord, maxPreemptions: Int) -> [Int?]? {
    let points = record.points
    var costBefore: [Int] = []
    costBefore.reserveCapacity(points.count)
    var cost = 0
    for point in points {
      costBefore.append(cost)
      if point.isPreemption { cost += 1 }
    }
    for depth in points.indices.reversed() {
      let point = points[depth]
      let order = alternatives(of: point)
      guard let position = order.firstIndex(of: point.chosen) else { continue }
      for alternative in order[(position + 1)...] {
        let preempts = ChoicePoint.preempts(alternative, among: point.tasks, previous: point.previous)
        if costBefore[depth] + (preempts ? 1 : 0) <= maxPreemptions {
          return points[..<depth].map { $0.chosen } + [alternative]
        }
      }
    }
    return nil
  }

  /// The indices of a point's ready jobs in the order the search tries them.
  static func alternatives(of point: ChoicePoint) -> [Int] {
    let first = ChoicePoint.defaultIndex(among: point.tasks, previous: point.previous)
    return [first] + point.tasks.indices.filter { $0 != first }
  }
}
