import Foundation
import LockstepTesting

// What one deterministic run costs, the way a test pays it: a fresh run per test. The baseline is
// the cheapest asynchronous round trip there is on the normal executors, a `Task {}` created and
// awaited, measured in the same run.

func runCostCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Deterministic run: the fixed cost of one run") {
    let runs = quick ? 2_000 : 20_000
    var values: [Int] = []
    let (empty, roundTrip) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
      for index in 0..<runs { values.append(try await withDeterministicScheduling { index }) }
    } _: {
      for index in 0..<runs { _ = await Task { index }.value }
    }
    try require(
      values.count >= runs && values.suffix(runs) == Array(0..<runs),
      "the runs returned \(values.suffix(runs).prefix(3))… instead of their bodies' values")
    let perRun = empty / Double(runs) * 1e6
    let perTrip = roundTrip / Double(runs) * 1e6

    // The scenario-3 debounce test the way a test suite runs it: one deterministic run per test
    // (the `.deterministic` trait, or `withDeterministicScheduling` around the test's body).
    let tests = quick ? 200 : 2_000
    var failures = 0
    let (scheduled, plain) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 7) {
      for _ in 0..<tests {
        if try await !withDeterministicScheduling({ try await debounceTestWithTestClock() }) {
          failures += 1
        }
      }
    } _: {
      for _ in 0..<tests where try await !debounceTestWithTestClock() { failures += 1 }
    }
    try require(failures == 0, "the debounce test failed \(failures) time(s)")
    let perTest = scheduled / Double(tests) * 1e6
    let perPlainTest = plain / Double(tests) * 1e6
    return [
      .compared(
        "run-cost", "the debounce test (scenario 3), one deterministic run per test", perTest, "µs",
        against: "the same test on the normal executors", baseline: perPlainTest,
        goal: "≤ 30 µs", met: perTest <= 30),
      .compared(
        "run-cost", "an empty run (withDeterministicScheduling { }), per run", perRun, "µs",
        against: "a Task {} created and awaited on the global executor", baseline: perTrip,
        goal: "≤ 10 µs", met: perRun <= 10),
    ]
  }
}

/// An unbuffered channel: `send` waits until a receiver takes the value, as in
/// swift-async-algorithms' `AsyncChannel` (written here, for the bench).
private final class Channel: @unchecked Sendable {
  private struct State {
    var senders: [(value: Int, resume: CheckedContinuation<Void, Never>)] = []
    var receivers: [CheckedContinuation<Int, Never>] = []
  }
  private let lock = NSLock()
  private var state = State()

  func send(_ value: Int) async {
    await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
      lock.lock()
      if state.receivers.isEmpty {
        state.senders.append((value, sent))
        lock.unlock()
      } else {
        let receiver = state.receivers.removeFirst()
        lock.unlock()
        receiver.resume(returning: value)
        sent.resume()
      }
    }
  }

  func receive() async -> Int {
    await withCheckedContinuation { (received: CheckedContinuation<Int, Never>) in
      lock.lock()
      if state.senders.isEmpty {
        state.receivers.append(received)
        lock.unlock()
      } else {
        let sender = state.senders.removeFirst()
        lock.unlock()
        sender.resume.resume()
        received.resume(returning: sender.value)
      }
    }
  }
}

/// Three producers send five values each through a channel; the body receives all fifteen.
@Sendable private func producersThroughAChannel() async -> Int {
  let channel = Channel()
  for producer in 0..<3 {
    Task { for value in 0..<5 { await channel.send(producer * 10 + value) } }
  }
  var sum = 0
  for _ in 0..<15 { sum += await channel.receive() }
  return sum
}

func explorationThroughputCase(quick: Bool) -> BenchmarkCase {
  BenchmarkCase(name: "Race finder: 3 producers × 5 values through a channel") {
    let schedules = quick ? 500 : 5_000
    let expected = (0..<3).reduce(0) { $0 + (0..<5).reduce(0) { $0 + $1 } + $1 * 50 }
    var wrong = 0
    var explored: ExplorationResult?
    let (exploring, plain) = try await alternatingMedianSeconds(repetitions: quick ? 3 : 5) {
      explored = await explore(.random(schedules: schedules, seed: 1)) {
        if await producersThroughAChannel() != expected { wrong += 1 }
      }
    } _: {
      for seed in 0..<UInt64(schedules) {
        _ = try await withDeterministicScheduling(seed: seed) { await producersThroughAChannel() }
      }
    }
    try require(wrong == 0, "\(wrong) schedules received the wrong sum")
    try require(
      explored?.failure == nil && explored?.schedulesRun == schedules,
      "the exploration did not run its \(schedules) schedules: \(String(describing: explored))")
    let rate = Double(schedules) / exploring
    return [
      .compared(
        "explore-channel", "random(\(schedules)), schedules/s", rate, "sched/s",
        against: "the same body as as many plain seeded withDeterministicScheduling runs",
        baseline: Double(schedules) / plain, goal: "≥ 20,000 schedules/s", met: rate >= 20_000)
    ]
  }
}
