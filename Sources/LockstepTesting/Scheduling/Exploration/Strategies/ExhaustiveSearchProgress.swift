/// How much of an exhaustive search is left, for ``SearchProgress``.
extension ExhaustiveSearch {
  /// What is left of the search after the schedule `record`, of the `ranInPass` schedules of the
  /// current pass and `ranBefore` of earlier passes, with `passesLeft` passes to go.
  static func progress(
    after record: ScheduleRecord, maxPreemptions: Int, ranInPass: Int, ranBefore: Int,
    passesLeft: Int
  ) -> SearchProgress {
    let points = record.points
    // below[j][r]: the schedules through choice points j… of this path with at most r
    // preemptions, if every schedule met the same choice points.
    let budget = min(max(maxPreemptions, 0), points.count)
    var below = [[Double]](repeating: [Double](repeating: 1, count: budget + 1), count: points.count + 1)
    for j in points.indices.reversed() {
      let point = points[j]
      let calm = Double(
        point.tasks.indices.count {
          !ChoicePoint.preempts($0, among: point.tasks, previous: point.previous)
        })
      let preempting = Double(point.tasks.count) - calm
      for r in 0...budget {
        below[j][r] = calm * below[j + 1][r] + (r > 0 ? preempting * below[j + 1][r - 1] : 0)
      }
    }
    var untried: [Int] = []
    untried.reserveCapacity(points.count)
    var left = 0.0
    var cost = 0
    for (depth, point) in points.enumerated() {
      let order = alternatives(of: point)
      var count = 0
      if let position = order.firstIndex(of: point.chosen) {
        for alternative in order[(position + 1)...] {
          let preempts = ChoicePoint.preempts(alternative, among: point.tasks, previous: point.previous)
          let remaining = maxPreemptions - cost - (preempts ? 1 : 0)
          guard remaining >= 0 else { continue }
          count += 1
          left += below[depth + 1][min(remaining, budget)]
        }
      }
      untried.append(count)
      if point.isPreemption { cost += 1 }
    }
    let pass = Double(ranInPass) + left
    let estimate = Double(ranBefore) + pass + Double(passesLeft) * pass
    return SearchProgress(
      untriedByDepth: untried, passesLeft: passesLeft,
      estimatedSchedules: estimate >= Double(Int.max) ? Int.max : Int(estimate.rounded()))
  }
}
