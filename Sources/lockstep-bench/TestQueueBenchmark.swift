import Foundation
import Lockstep
import LockstepTesting

// TestQueue benchmark: 100,000 work items scheduled at shuffled deadlines 1…N ms on a TestQueue
// and run by advancing time, against calling the same closures directly, in the same run. The
// ratio is the overhead per item of scheduling, ordering and running through the queue.

/// A counter the work increments; the closures are identical in both measurements.
private final class Tally: @unchecked Sendable {
  var value = 0
}

func testQueueCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "TestQueue: N scheduled items run by advancing time vs direct calls") {
    let count = quick ? 10_000 : 100_000
    var generator = SystemRandomNumberGenerator()
    let deadlines = (1...count).shuffled(using: &generator)
    let tally = Tally()
    let work: [@Sendable () -> Void] = deadlines.map { deadline in { tally.value &+= deadline } }

    let direct = await medianSeconds(repetitions: quick ? 3 : 7) {
      for item in work { item() }
    }
    var failures = 0
    let queued = await medianSeconds(repetitions: quick ? 3 : 5) {
      let queue = TestQueue()
      for (index, item) in work.enumerated() {
        queue.schedule(after: .milliseconds(deadlines[index]), item)
      }
      let ran = await queue.advance(by: .milliseconds(count))
      if ran != count || queue.pendingCount != 0 { failures += 1 }
    }
    if failures > 0 { print("    (\(failures) runs did not run every item)") }
    let perItem = queued / Double(count) * 1e6
    return [
      Measurement(
        benchmarkCase: "TestQueue", metric: "N = \(count): schedule + advance, per item",
        value: perItem, unit: "µs", baseline: direct / Double(count) * 1e6,
        ratio: queued / direct, goal: "≤ 5 µs per item, every item run", met: perItem <= 5 && failures == 0),
      Measurement(
        benchmarkCase: "TestQueue", metric: "N = \(count): direct calls, total",
        value: direct * 1e3, unit: "ms", baseline: nil, ratio: nil, goal: "baseline", met: nil),
    ]
  }
}
