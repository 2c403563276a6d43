import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// One schedule a strategy planned, run against the simulated tasks.
private struct Ran: Hashable {
  let order: [Int]
  let cancelAt: Int?
  /// The schedule number of a seeded strategy.
  let number: Int?
  /// Whether a sharded exhaustive search ran it only for the shape of another shard's subtree.
  let findsShape: Bool
}

/// Runs `strategy` (in `shard`) against `tasks` simulated tasks of `jobs` jobs each, reporting
/// `waits` Lockstep waits for every schedule.
private func drive(
  _ strategy: ExplorationStrategy, shard: ExplorationShard? = nil, cancellation: Bool = false,
  waits: Int = 0, tasks: Int = 2, jobs: Int = 2
) -> (ran: [Ran], complete: Bool?) {
  var schedules = strategy.makeScheduleStrategy(injectsCancellation: cancellation, shard: shard)
  var step = schedules.next(after: nil)
  var ran: [Ran] = []
  while case .run(var planned) = step {
    let order = simulateTasks(&planned.picker, tasks: tasks, jobs: jobs)
    ran.append(
      Ran(
        order: order, cancelAt: planned.cancelAtWait, number: planned.number, findsShape: planned.findsShape))
    step = schedules.next(after: ScheduleReport(record: planned.picker.record, waits: waits))
  }
  guard case .done(let complete, _) = step else { return (ran, nil) }
  return (ran, complete)
}

/// Every order of the simulated tasks with at most `bound` preemptions, by brute force.
private func bruteForce(tasks: Int, jobs: Int, bound: Int) -> [[Int]] {
  allOrders(tasks: tasks, jobs: jobs).filter { $0.preemptions <= bound }.map(\.order)
}

private func shards(_ count: Int) -> [ExplorationShard] {
  (1...count).map { ExplorationShard(index: $0, count: count) }
}

private let shapes = [(2, 2), (2, 3), (3, 1), (3, 2), (3, 3), (4, 2), (2, 6)]

@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct ShardTests {
  // MARK: Exhaustive: disjoint subtrees that together are the whole search

  @Test(arguments: shapes)
  func exhaustiveShardsAreDisjointAndTogetherEverySchedule(_ shape: (Int, Int)) async {
    await onAThreadOfItsOwn {
      let (tasks, jobs) = shape
      for bound in 0...3 {
        let expected = bruteForce(tasks: tasks, jobs: jobs, bound: bound)
        for count in 1...5 {
          var seen: [[Int]: Int] = [:]
          for shard in shards(count) {
            let (ran, complete) = drive(
              .exhaustive(maxPreemptions: bound), shard: shard, tasks: tasks, jobs: jobs)
            #expect(complete == true, "\(shape), bound \(bound), shard \(shard)")
            for schedule in ran where !schedule.findsShape { seen[schedule.order, default: 0] += 1 }
          }
          let twice = seen.filter { $0.value > 1 }.keys
          #expect(twice.isEmpty, "\(shape), bound \(bound), \(count) shards: run by two shards: \(twice)")
          #expect(
            Set(seen.keys) == Set(expected),
            "\(shape), bound \(bound), \(count) shards: \(seen.count) of \(expected.count) schedules")
        }
      }
    }
  }

  @Test func exhaustiveShardsShareTheWorkAndRunFewSchedulesOfOthers() async {
    await onAThreadOfItsOwn {
      // 5 tasks of 2 jobs within 1 preemption: 1,320 schedules.
      let whole = bruteForce(tasks: 5, jobs: 2, bound: 1).count
      #expect(whole == 1_320)
      for count in [2, 3, 4] {
        var own: [Int] = []
        for shard in shards(count) {
          let (ran, _) = drive(.exhaustive(maxPreemptions: 1), shard: shard, tasks: 5, jobs: 2)
          own.append(ran.count { !$0.findsShape })
          let shape = ran.count { $0.findsShape }
          #expect(shape <= 4 * count, "shard \(shard) ran \(shape) schedules of other shards")
        }
        #expect(own.reduce(0, +) == whole)
        // Each shard does about its share: none more than 1.25 times it.
        #expect(own.allSatisfy { $0 <= 5 * whole / (4 * count) }, "\(count) shards: \(own)")
      }
    }
  }

  @Test func exhaustiveShardsSplitTheCancellationPassesToo() {
    let unsharded = drive(.exhaustive(maxPreemptions: 1), cancellation: true, waits: 2, tasks: 3, jobs: 2)
    let expected = Set(unsharded.ran.map { [$0.cancelAt ?? -1] + $0.order })
    #expect(Set(unsharded.ran.compactMap(\.cancelAt)) == [0, 1])
    for count in [2, 3] {
      var seen: [[Int]] = []
      for shard in shards(count) {
        let (ran, complete) = drive(
          .exhaustive(maxPreemptions: 1), shard: shard, cancellation: true, waits: 2, tasks: 3, jobs: 2)
        #expect(complete == true)
        seen += ran.filter { !$0.findsShape }.map { [$0.cancelAt ?? -1] + $0.order }
      }
      #expect(seen.count == expected.count, "\(count) shards")
      #expect(Set(seen) == expected, "\(count) shards")
    }
  }

  @Test func aShardStopsAtItsLimitCountingEveryScheduleItRuns() {
    let (ran, complete) = drive(
      .exhaustive(maxPreemptions: 2, limit: 5), shard: ExplorationShard(index: 2, count: 3), tasks: 3, jobs: 3
    )
    #expect(ran.count == 5)
    #expect(complete == false)
  }

  // MARK: Random and PCT: disjoint schedule numbers, so disjoint seeds

  @Test(arguments: [
    ExplorationStrategy.random(schedules: 40, seed: 9), .pct(schedules: 40, depth: 2, seed: 9),
  ])
  func seededShardsRunDisjointScheduleNumbersAndSeeds(_ strategy: ExplorationStrategy) {
    let seeds = SeededSchedules(schedules: 1, seed: 9, injectsCancellation: false)
    for count in [2, 3, 7] {
      var numbers: [Int] = []
      for shard in shards(count) {
        let (ran, complete) = drive(strategy, shard: shard)
        #expect(complete == true && ran.count == 40, "\(strategy) shard \(shard)")
        let mine = ran.compactMap(\.number)
        #expect(mine == Array(stride(from: shard.index, through: 40 * count, by: count)))
        numbers += mine
      }
      // n shards of 40 schedules are schedules 1 … 40n of the exploration, each once.
      #expect(numbers.sorted() == Array(1...(40 * count)))
      #expect(Set(numbers.map(seeds.seed(ofSchedule:))).count == numbers.count, "seeds are disjoint")
    }
  }

  @Test func randomShardsRunTheSchedulesOfOneLargerExploration() {
    // Schedule n has the same seed in a shard as in the whole exploration, so the same order.
    let whole = drive(.random(schedules: 90, seed: 5), tasks: 3, jobs: 2).ran
    var sharded: [Ran] = []
    for shard in shards(3) {
      sharded += drive(.random(schedules: 30, seed: 5), shard: shard, tasks: 3, jobs: 2).ran
    }
    #expect(sharded.sorted { $0.number! < $1.number! } == whole)
    #expect(Set(whole.map(\.order)).count > 10, "the orders differ from schedule to schedule")
  }

  @Test func withoutAShardOrInShardOneOfOneTheSchedulesAreTheSame() {
    let one = ExplorationShard(index: 1, count: 1)
    for strategy in [
      ExplorationStrategy.random(schedules: 20, seed: 3), .pct(schedules: 20, seed: 3), .exhaustive(),
    ] {
      #expect(drive(strategy, shard: one, tasks: 3).ran == drive(strategy, tasks: 3).ran, "\(strategy)")
    }
  }
}
