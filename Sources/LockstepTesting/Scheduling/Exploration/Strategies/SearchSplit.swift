/// How a sharded exhaustive search (``ExhaustiveStrategy`` with a shard *k* of *n*) divides the
/// schedules between shards, as a pure function of the schedules that ran.
///
/// The search tree is split at its first choice points into *subtrees*: the schedules that make
/// the same first choices, up to the split (``unitLength(of:)``), form one subtree. Depth-first
/// search visits the subtrees one after another, in the same order in every shard, and numbers
/// them from 0; each subtree belongs to one shard (``owns(_:)``), which searches it exactly as the
/// unsharded search would. So the shards' schedules are disjoint, and together they are every
/// schedule of the unsharded search.
///
/// Every shard walks the same top of the tree. Where the next subtree is another shard's, it
/// skips it without running anything when the subtree's root is known (it hangs off a choice
/// point the last schedule went through); otherwise it runs that subtree's first schedule only to
/// learn the choice points above the split (`findsShape`) — about one schedule for every node
/// just above the split.
///
/// The split is fixed by the first schedule, the same in every shard: `depth` is the fewest first
/// choice points whose alternatives (within the preemption bound) multiply to at least 4 subtrees
/// a shard. A prefix that could have preempted but did not keeps its whole preemption budget, so
/// its subtree is larger than its siblings': such prefixes are split one choice point deeper.
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
  var ownsSubtree: Bool { owns(subtree) }

  /// Whether subtree `number` is this shard's. Each block of `n` consecutive subtrees gives one
  /// to each shard, in an order rotated by a hash of the block's number, so that a heavy first
  /// child of every node does not always land in the same shard.
  func owns(_ number: Int) -> Bool {
    var hash = SplitMix64(seed: UInt64(number / shard.count))
    let rotation = Int(hash.next() % UInt64(shard.count))
    return shard.owns(number + rotation)
  }

  /// The split depth for a first schedule (all default choices, so no preemption yet).
  static func depth(first record: ScheduleRecord, shards: Int, maxPreemptions: Int) -> Int {
    let wanted = 4 * shards
    var subtrees = 1
    var depth = 0
    for point in record.points where subtrees < wanted {
      let alternatives =
        maxPreemptions > 0
        ? point.tasks.count
        : point.tasks.indices.count {
          !ChoicePoint.preempts($0, among: point.tasks, previous: point.previous)
        }
      let (product, overflow) = subtrees.multipliedReportingOverflow(by: max(alternatives, 1))
      subtrees = overflow ? wanted : product
      depth += 1
    }
    return depth
  }

  /// Whether a path's first choice points, `prefix`, name its subtree: the split stops after the
  /// first `depth`, or one later for a prefix that kept its whole preemption budget although it
  /// could have preempted (its subtree is the largest among its siblings).
  func splits(after prefix: ArraySlice<ChoicePoint>) -> Bool {
    let depth = depth ?? 0
    guard prefix.count >= depth else { return false }
    let keptItsBudget =
      !prefix.contains { $0.isPreemption } && prefix.contains { $0.tasks.contains($0.previous) }
    return !keptItsBudget || prefix.count > depth
  }

  /// How many of a path's first choice points name its subtree (all of them, for a path that
  /// ends above the split).
  func unitLength(of points: [ChoicePoint]) -> Int {
    (0..<points.count).first { splits(after: points[..<$0]) } ?? points.count
  }

  /// The next schedule to run after the one recorded (in the current subtree): its plan, and
  /// whether it is run only to find the shape of another shard's subtree; `nil` when the pass
  /// has no more subtrees of this shard.
  mutating func next(after record: ScheduleRecord) -> (plan: [Int?], findsShape: Bool)? {
    if depth == nil {
      depth = Self.depth(first: record, shards: shard.count, maxPreemptions: maxPreemptions)
    }
    var path = record.points
    var plan: [Int?]
    if ownsSubtree {
      guard let next = ExhaustiveSearch.nextPlan(after: record, maxPreemptions: maxPreemptions)
      else { return nil }
      // Diverging within the choice points that name the subtree leaves it.
      if next.count > unitLength(of: path) { return (next, false) }
      plan = next
    } else {
      // Another shard's subtree, run for its shape: on to the next subtree.
      let named = ScheduleRecord(points: Array(path.prefix(unitLength(of: path))))
      guard let next = ExhaustiveSearch.nextPlan(after: named, maxPreemptions: maxPreemptions)
      else { return nil }
      plan = next
    }
    while true {
      // `plan` starts a new subtree: it leaves `path` at choice point `point`.
      subtree += 1
      if ownsSubtree { return (plan, false) }
      let point = plan.count - 1
      let known = path[point]
      let root =
        Array(path[..<point]) + [
          ChoicePoint(
            tasks: known.tasks, previous: known.previous, chosen: plan[point] ?? 0, step: known.step)
        ]
      // Unless the choice points known so far name the subtree, run its first schedule to learn
      // the ones below.
      if !splits(after: root[...]) { return (plan, true) }
      path = root
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
