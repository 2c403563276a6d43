import Foundation
import LockstepTesting

// SequenceRecorder benchmark: an AsyncStream of N values, recorded by a SequenceRecorder and
// checked one by one with next(), against a plain `for await` loop over the same stream, in the
// same run. Both streams are filled before they are consumed, so both loops measure consumption:
// the recorder's task iterating the stream and recording each value under a lock, and the test
// taking each value back with next(). The ratio is printed; the goal (≤ 3×) is reported, never asserted; a run that misses a value
// fails the case.

/// A stream that already holds `count` values and has finished.
private func filledStream(_ count: Int) -> AsyncStream<Int> {
  let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
  for value in 0..<count { continuation.yield(value) }
  continuation.finish()
  return stream
}

func sequenceRecorderCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "SequenceRecorder: N stream values checked with next() vs a for-await loop") {
    let count = quick ? 10_000 : 100_000
    var failures = 0
    let plain = await medianSeconds(repetitions: quick ? 3 : 7) {
      var sum = 0
      for await value in filledStream(count) { sum &+= value }
      if sum != count * (count - 1) / 2 { failures += 1 }
    }
    let recorded = await medianSeconds(repetitions: quick ? 3 : 7) {
      let recorder = SequenceRecorder(filledStream(count), name: "bench")
      var sum = 0
      do {
        for _ in 0..<count { sum &+= try await recorder.next() }
        try await recorder.expectFinished()
      } catch {
        failures += 1
      }
      if sum != count * (count - 1) / 2 { failures += 1 }
    }
    try require(failures == 0, "\(failures) runs did not see every value")
    let perValue = recorded / Double(count) * 1e9
    let baseline = plain / Double(count) * 1e9
    let ratio = recorded / plain
    return [
      Measurement(
        benchmarkCase: "SequenceRecorder", metric: "N = \(count): record + next(), per value",
        value: perValue, unit: "ns",
        against: "a plain for-await loop over the same filled stream, per value",
        baseline: baseline, ratio: ratio, ratioIs: "value ÷ baseline", goal: "≤ 3",
        met: ratio <= 3)
    ]
  }
}
