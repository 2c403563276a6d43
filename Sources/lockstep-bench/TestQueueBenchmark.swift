import Foundation
import Lockstep
import LockstepTesting

// TestQueue benchmark: 100,000 work items scheduled at shuffled deadlines 1…N ms on a TestQueue
// and run by advancing time, against calling the same closures directly, in the same run. The
// ratio is the overhead per item of scheduling, ordering and running through the queue.

/// What the work items saw: each item notes its deadline, and counts a step back in time. The
/// closures are identical in both measurements; only the queue is expected to run them in order.
private final class Tally: @unchecked Sendable {
  var last = 0
  var outOfOrder = 0

  func note(_ deadline: Int) {
    if deadline < last { outOfOrder += 1 }
    last = deadline
  }
}

func testQueueCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "TestQueue: N scheduled items run by advancing time vs direct calls") {
    let count = quick ? 10_000 : 100_000
    var generator = SystemRandomNumberGenerator()
    let deadlines = (1...count).shuffled(using: &generator)
    let tally = Tally()
    let work: [@Sendable () -> Void] = deadlines.map { deadline in { tally.note(deadline) } }

    let direct = await medianSeconds(repetitions: quick ? 3 : 7) {
      for item in work { item() }
    }
    var wrongRuns: [String] = []
    let queued = await medianSeconds(repetitions: quick ? 3 : 5) {
      let queue = TestQueue()
      tally.last = 0
      tally.outOfOrder = 0
      for (index, item) in work.enumerated() {
        queue.schedule(after: .milliseconds(deadlines[index]), item)
      }
      let ran = await queue.advance(by: .milliseconds(count))
      if ran != count || queue.pendingCount != 0 || tally.outOfOrder != 0 {
        wrongRuns.append(
          "ran \(ran) of \(count), \(queue.pendingCount) left pending, \(tally.outOfOrder) out of "
            + "deadline order")
      }
    }
    try require(
      wrongRuns.isEmpty,
      "advancing past every deadline, \(wrongRuns.count) run(s) went wrong; the first "
        + "\(wrongRuns.first ?? "")")
    return [
      .compared(
        "TestQueue", "N = \(count): schedule + advance, per item", queued / Double(count) * 1e6,
        "µs", against: "calling the same closures directly", baseline: direct / Double(count) * 1e6)
    ]
  }
}
