import Foundation
import LockstepInterposition
import LockstepTesting

// What a clock read costs now that LockstepTesting stands in for the C library's clock reads
// (virtual now, Linux): outside a run every read passes through, a thread-local check and a call.
// The baseline is the C library's own `clock_gettime`, called directly in the same run. Apple
// platforms bind each call to its library, so nothing stands in there and nothing is compared.

/// A value the optimizer cannot drop, from the bits of `value`.
@inline(__always) private func bits<T>(_ value: T) -> Int64 {
  withUnsafeBytes(of: value) { $0.load(as: Int64.self) }
}

func clockReadCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Clock reads: ContinuousClock.now and Date() outside and inside runs") {
    let reads = quick ? 200_000 : 2_000_000
    let repetitions = quick ? 3 : 7
    var sink: Int64 = 0
    var results: [Measurement] = []
    #if os(Linux)
      // CLOCK_BOOTTIME: the clock `ContinuousClock` reads on Linux (Darwin has none).
      var time = timespec()
      let (standIn, direct) = await alternatingMedianSeconds(repetitions: repetitions) {
        for _ in 0..<reads {
          clock_gettime(CLOCK_BOOTTIME, &time)
          sink &+= Int64(time.tv_nsec)
        }
      } _: {
        for _ in 0..<reads { sink &+= lockstep_real_clock_nanoseconds(Int32(CLOCK_BOOTTIME)) }
      }
      results.append(
        .compared(
          "clock-read", "clock_gettime outside runs, through Lockstep's stand-in, per read",
          standIn / Double(reads) * 1e9, "ns",
          against: "the C library's clock_gettime called directly", baseline: direct / Double(reads) * 1e9,
          goal: "≤ 1.2", met: standIn <= direct * 1.2))
    #endif
    let continuous = await medianSeconds(repetitions: repetitions) {
      for _ in 0..<reads { sink &+= bits(ContinuousClock.now) }
    }
    let dates = await medianSeconds(repetitions: repetitions) {
      for _ in 0..<reads { sink &+= bits(Date()) }
    }
    results += [
      .figure(
        "clock-read", "ContinuousClock.now outside runs, per read", continuous / Double(reads) * 1e9, "ns"),
      .figure("clock-read", "Date() outside runs, per read", dates / Double(reads) * 1e9, "ns"),
    ]
    if VirtualNow.isAvailable {
      var first: ContinuousClock.Instant?
      var last: ContinuousClock.Instant?
      let inside = try await medianSeconds(repetitions: repetitions) {
        try await withDeterministicScheduling {
          first = ContinuousClock.now
          for _ in 0..<reads { sink &+= bits(ContinuousClock.now) }
          last = ContinuousClock.now
        }
      }
      try require(first != nil && first == last, "virtual now moved during one job")
      results.append(
        .figure(
          "clock-read", "ContinuousClock.now inside a run (virtual), per read", inside / Double(reads) * 1e9,
          "ns"))
    }
    try require(sink != .min, "")
    return results
  }
}
