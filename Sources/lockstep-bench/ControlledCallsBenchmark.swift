import Foundation
import LockstepTesting

/// The bare minimum the same workload needs: each call stores a checked continuation under a lock,
/// the last arrival wakes the driver, and the driver resumes the stored continuations in the
/// same out-of-order sequence. No ids, no arguments, no misuse checks, no teardown.
private final class BareCalls: @unchecked Sendable {
  private let lock = NSLock()
  private var waiting: [Int: CheckedContinuation<Int, Never>] = [:]
  private var allArrived: CheckedContinuation<Void, Never>?
  private let expected: Int

  init(expected: Int) { self.expected = expected }

  func call(_ id: Int) async -> Int {
    await withCheckedContinuation { continuation in
      let wake: CheckedContinuation<Void, Never>? = lock.withLock {
        waiting[id] = continuation
        guard waiting.count == expected else { return nil }
        defer { allArrived = nil }
        return allArrived
      }
      wake?.resume()
    }
  }

  func waitUntilAllArrived() async {
    await withCheckedContinuation { continuation in
      let arrived = lock.withLock {
        if waiting.count == expected { return true }
        allArrived = continuation
        return false
      }
      if arrived { continuation.resume() }
    }
  }

  func complete(_ id: Int) {
    lock.withLock { waiting.removeValue(forKey: id) }?.resume(returning: id)
  }
}

/// Counts finished callers and wakes the driver when the last one is done.
private final class Countdown: @unchecked Sendable {
  private let lock = NSLock()
  private var remaining: Int
  private var waiter: CheckedContinuation<Void, Never>?

  init(_ count: Int) { remaining = count }

  func done() {
    let wake: CheckedContinuation<Void, Never>? = lock.withLock {
      remaining -= 1
      guard remaining == 0 else { return nil }
      defer { waiter = nil }
      return waiter
    }
    wake?.resume()
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let finished = lock.withLock {
        if remaining == 0 { return true }
        waiter = continuation
        return false
      }
      if finished { continuation.resume() }
    }
  }
}

/// An out-of-order completion sequence of the ids 1...count: a fixed stride that visits each id
/// once (7919 is prime, so it is coprime with the counts used here).
private func scrambled(_ count: Int) -> [Int] {
  (0..<count).map { ($0 * 7919) % count + 1 }
}

// The callers are unstructured tasks, not task-group children: the runtime unlinks a finished
// child from its group's list by a linear scan, which costs O(n) per out-of-order completion and
// would drown both measurements in the runtime's own bookkeeping.

private func runControlled(count: Int, order: [Int]) async throws {
  let calls = ControlledCalls<Int, Int>("bench")
  let finished = Countdown(count)
  for argument in 1...count {
    Task {
      _ = try? await calls.call(argument)
      finished.done()
    }
  }
  for id in 1...count { try await calls.waitUntilPending(id, timeout: .seconds(120)) }
  for id in order { calls.succeed(id, with: id) }
  await finished.wait()
  try require(
    calls.pendingCount == 0 && calls.callCount == count,
    "\(calls.callCount) of \(count) calls arrived and \(calls.pendingCount) are still pending "
      + "after every call was completed")
}

private func runBare(count: Int, order: [Int]) async {
  let calls = BareCalls(expected: count)
  let finished = Countdown(count)
  for id in 1...count {
    Task {
      _ = await calls.call(id)
      finished.done()
    }
  }
  await calls.waitUntilAllArrived()
  for id in order { calls.complete(id) }
  await finished.wait()
}

/// 10,000 controlled calls created, each awaited as pending, completed out of order; against a
/// bare `withCheckedContinuation` round trip doing the same in the same run.
func controlledCallsCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "ControlledCalls: 10,000 calls, awaited as pending, completed out of order") {
    let count = quick ? 2_000 : 10_000
    let repetitions = quick ? 3 : 7
    let order = scrambled(count)
    // Warm up both, then interleave them so that machine noise hits both alike.
    await runBare(count: count, order: order)
    try await runControlled(count: count, order: order)
    var bareSamples: [Double] = []
    var controlledSamples: [Double] = []
    for _ in 0..<repetitions {
      bareSamples.append(await seconds { await runBare(count: count, order: order) })
      controlledSamples.append(try await seconds { try await runControlled(count: count, order: order) })
    }
    let bare = median(bareSamples) / Double(count) * 1e6
    let controlled = median(controlledSamples) / Double(count) * 1e6
    return [
      .compared(
        "controlled-calls", "cost per call", controlled, "µs",
        against: "a bare withCheckedContinuation round trip, same calls, same order",
        baseline: bare, goal: "≤ 3", met: controlled / bare <= 3)
    ]
  }
}
