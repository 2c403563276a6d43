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

/// ``ExplorationStrategy/exhaustive(maxPreemptions:limit:)``: every schedule within the
/// preemption bound, depth-first (``ExhaustiveSearch``); with cancellation injected, the same
/// search again with a cancellation at each Lockstep wait in turn. With a shard, only the
/// shard's subtrees of each search (``SearchSplit``); `limit` counts every schedule it runs.
struct ExhaustiveStrategy: ScheduleStrategy {
  let maxPreemptions: Int
  let limit: Int
  let injectsCancellation: Bool
  /// The plan of the next schedule; `nil` once the current search is exhausted.
  private var plan: [Int?]? = []
  private var findsShape = false
  private var cancelAt: Int?
  private var count = 0
  private var mostWaits = 0
  /// How a shard's part is found; `nil` when the search is not split.
  private var split: SearchSplit?
  /// The last schedule that ran in the current pass, and how many ran in it and before it.
  private var last: ScheduleRecord?
  private var ranInPass = 0
  private var ranBefore = 0
  /// For a sharded search, the schedules run in each subtree, by number (``subtreeSchedules``).
  private var ranInSubtree: [Int] = []

  init(maxPreemptions: Int, limit: Int, injectsCancellation: Bool, shard: ExplorationShard? = nil) {
    self.maxPreemptions = maxPreemptions
    self.limit = limit
    self.injectsCancellation = injectsCancellation
    if let shard, shard.count > 1 {
      split = SearchSplit(shard: shard, maxPreemptions: maxPreemptions)
      // The first schedule is subtree 0's, shard 1's; every other shard runs it for its shape.
      findsShape = !split!.ownsSubtree
    }
  }

  mutating func next(after previous: ScheduleReport?) -> StrategyStep {
    if let previous {
      mostWaits = max(mostWaits, previous.waits)
      last = previous.record
      ranInPass += 1
      if split != nil {
        let next = split!.next(after: previous.record)
        (plan, findsShape) = (next?.plan, next?.findsShape ?? false)
      } else {
        plan = ExhaustiveSearch.nextPlan(after: previous.record, maxPreemptions: maxPreemptions)
      }
    }
    while plan == nil {
      // Then the same search with a cancellation at each Lockstep wait in turn.
      let nextWait = cancelAt.map { $0 + 1 } ?? 0
      guard injectsCancellation, nextWait < mostWaits else { return .done(complete: true) }
      cancelAt = nextWait
      (ranBefore, ranInPass, last) = (ranBefore + ranInPass, 0, nil)
      if split != nil {
        let start = split!.startPass()
        (plan, findsShape) = (start?.plan, start?.findsShape ?? false)
      } else {
        plan = []
      }
    }
    guard count < limit, let plan else { return .done(complete: false) }
    count += 1
    var inSubtree: Int?
    if let subtree = split?.subtree {
      if ranInSubtree.count <= subtree {
        ranInSubtree += repeatElement(0, count: subtree + 1 - ranInSubtree.count)
      }
      // A schedule run for its shape is its subtree's first.
      if !findsShape { ranInSubtree[subtree] += 1 }
      inSubtree = findsShape ? 1 : ranInSubtree[subtree]
    }
    return .run(
      PlannedSchedule(
        picker: GuidedPicker(plan: plan), cancelAtWait: cancelAt, subtree: split?.subtree,
        inSubtree: inSubtree, findsShape: findsShape))
  }

  var subtreeSchedules: [Int]? { split == nil ? nil : ranInSubtree }

  /// What is left of the search, when it stops before the end (see ``SearchProgress``); `nil` for
  /// a shard's part of a search, whose untried subtrees are mostly other shards'.
  var progress: SearchProgress? {
    guard split == nil else { return nil }
    let passesLeft = injectsCancellation ? max(0, mostWaits - (cancelAt.map { $0 + 1 } ?? 0)) : 0
    guard let last else {
      // Between two passes: the next one is as large as the one before.
      let passes = max(cancelAt.map { $0 + 1 } ?? 1, 1)
      let size = ranBefore / passes
      return SearchProgress(
        untriedByDepth: [], passesLeft: passesLeft + 1,
        estimatedSchedules: ranBefore + (passesLeft + 1) * size)
    }
    return ExhaustiveSearch.progress(
      after: last, maxPreemptions: maxPreemptions, ranInPass: ranInPass, ranBefore: ranBefore,
      passesLeft: passesLeft)
  }
}
