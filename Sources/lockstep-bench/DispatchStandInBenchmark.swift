import LockstepInterposition
import LockstepInterposition.BenchHooks

// What standing in for `dispatch_async` costs ordinary code outside runs (Linux): every call of the
// process passes through Lockstep's definition, which checks two thread-local values and goes on
// to libdispatch. The baseline is libdispatch's `dispatch_async` called directly, in the same run:
// the same blocks on the same serial queue, waited for the same way.

func dispatchStandInCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Dispatch: dispatch_async outside runs, through the stand-in and directly") {
    let calls: Int32 = quick ? 100_000 : 1_000_000
    var ran: UInt64 = 0
    let (standIn, direct) = await alternatingMedianSeconds(repetitions: quick ? 5 : 9) {
      ran &+= lockstep_dispatch_measure(true, calls)
    } _: {
      ran &+= lockstep_dispatch_measure(false, calls)
    }
    // Nothing stands in on other platforms.
    guard ran > 0 else { return [] }
    let ratio = standIn / direct
    return [
      .compared(
        "dispatch-stand-in", "DispatchQueue.async-style call outside runs, queued and run, per call",
        standIn / Double(calls) * 1e9, "ns",
        against: "libdispatch's dispatch_async called directly", baseline: direct / Double(calls) * 1e9,
        goal: "≤ 1.05", met: ratio <= 1.05)
    ]
  }
}
