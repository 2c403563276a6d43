/// How a sharded exhaustive search (``ExhaustiveStrategy`` with a shard *k* of *n*) divides the
/// schedules between shards, as a pure function of the schedules that ran.
///
/// The search tree is split at depth `depth`, its first choice points: the schedules that make
/// the same first `depth` choices form one *subtree* (a schedule with fewer choice points is a
/// subtree of its own). Depth-first search visits the subtrees one after another, in the same
/// order in every shard; subtree *i* (from 0) belongs to shard *i mod n* + 1, which searches it
/// exactly as the unsharded search would. So the shards' schedules are disjoint, and together
/// they are every schedule of the unsharded search.
///
/// Every shard walks the same top of the tree. Where the next subtree is another shard's, it
/// skips it without running anything when its root is known (it hangs off a known choice point
/// just above the split); otherwise it runs that subtree's first schedule only to learn the choice
/// points below (`findsShape`) — about one schedule for every node just above the split.
///
/// `depth` is fixed by the first schedule, the same in every shard: the fewest first choice points
/// whose alternatives (within the preemption bound) multiply to at least 8 subtrees a shard, so
/// that each shard gets many subtrees of mixed sizes.
struct SearchSplit {
  let shard: ExplorationShard
  let maxPreemptions: Int
  /// The depth of the split; `nil` until the first schedule ran.
  private(set) var depth: Int?
  /// The number of the subtree the last planned schedule lies in, from 0, in depth-first order
  /// (across the passes of an exploration that injects cancellation).
  private(set) var subtree = 0

  init(shard: ExplorationShard, maxPreemptions: Int) {
    self.shard = shard
    self.maxPreemptions = maxPreemptions
  }

  /// Whether the current subtree is this shard's.
  var ownsSubtree: Bool { shard.owns(subtree) }

  /// The split depth for a first schedule (all default choices, so no preemption yet).
  static func depth(first record: ScheduleRecord, shards: Int, maxPreemptions: Int) -> Int {
    let wanted = 8 * shards
    var subtrees = 1
    var depth = 0
    for point in record.points where subtrees < wanted {
      let alternatives =
        maxPreemptions > 0
        ? point.tasks.count
        : point.tasks.indices.count {
          !ChoicePoint.preempts($0, among: point.tasks, previous: point.previous)
        }
      subtrees = subtrees.multipliedReportingOverflow(by: max(alternatives, 1)).overflow
        ? wanted : subtrees * max(alternatives, 1)
      depth += 1
    }
    return depth
  }

  /// The next schedule to run after the one recorded (in the current subtree): its plan, and
  /// whether it is run only to find the shape of another shard's subtree; `nil` when the pass
  /// has no more subtrees of this shard.
  mutating func next(after record: ScheduleRecord) -> (plan: [Int?], findsShape: Bool)? {
    let depth = depth ?? Self.depth(first: record, shards: shard.count, maxPreemptions: maxPreemptions)
    self.depth = depth
    var path = record.points
    var plan: [Int?]
    if ownsSubtree {
      guard let next = ExhaustiveSearch.nextPlan(after: record, maxPreemptions: maxPreemptions)
      else { return nil }
      // Diverging at or below the split: the same subtree.
      if next.count > depth { return (next, false) }
      plan = next
    } else {
      // Another shard's subtree, run for its shape: on to the next subtree.
      guard
        let next = ExhaustiveSearch.nextPlan(
          after: ScheduleRecord(points: Array(path.prefix(depth))), maxPreemptions: maxPreemptions)
      else { return nil }
      plan = next
    }
    while true {
      // `plan` starts a new subtree: it diverges from `path` at choice point `point` < depth.
      subtree += 1
      let point = plan.count - 1
      if ownsSubtree { return (plan, false) }
      if point < depth - 1 { return (plan, true) }
      // The subtree's root hangs off a known choice point just above the split: skip it.
      let known = path[point]
      path = Array(path[..<point]) + [
        ChoicePoint(tasks: known.tasks, previous: known.previous, chosen: plan[point] ?? 0, step: known.step)
      ]
      guard
        let next = ExhaustiveSearch.nextPlan(
          after: ScheduleRecord(points: path), maxPreemptions: maxPreemptions)
      else { return nil }
      plan = next
    }
  }

  /// The first schedule of another pass (the search again, cancelling at another wait): its plan
  /// and whether it is run only for its shape, or `nil` when the whole pass is another shard's
  /// (a split at depth 0 makes each pass one subtree).
  mutating func startPass() -> (plan: [Int?], findsShape: Bool)? {
    subtree += 1
    if ownsSubtree { return ([], false) }
    if depth == 0 { return nil }
    return ([], true)
  }
}
