import Dispatch
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// One row of the table: the flags and QoS a block is queued with.
struct FlagRow: Sendable, CustomTestStringConvertible {
  let name: String
  /// The flags' raw value: `DispatchWorkItemFlags` is not `Sendable` on Linux.
  let flagBits: UInt
  let qos: DispatchQoS

  init(_ name: String, _ flags: DispatchWorkItemFlags, qos: DispatchQoS = .unspecified) {
    self.name = name
    self.flagBits = flags.rawValue
    self.qos = qos
  }

  var flags: DispatchWorkItemFlags { DispatchWorkItemFlags(rawValue: flagBits) }

  var testDescription: String { name }

  static let all: [FlagRow] = [
    FlagRow("none", []),
    FlagRow("qos only", [], qos: .userInitiated),
    FlagRow("barrier", .barrier),
    FlagRow("barrier, inheritQoS", [.barrier, .inheritQoS]),
    FlagRow("barrier, enforceQoS", [.barrier, .enforceQoS], qos: .userInitiated),
    FlagRow("barrier, detached", [.barrier, .detached]),
    FlagRow("barrier, assignCurrentContext", [.barrier, .assignCurrentContext]),
    FlagRow("barrier, noQoS", [.barrier, .noQoS]),
    FlagRow("barrier with a QoS", .barrier, qos: .utility),
    FlagRow("inheritQoS", .inheritQoS),
    FlagRow("enforceQoS", .enforceQoS, qos: .userInitiated),
    FlagRow("detached", .detached),
    FlagRow("assignCurrentContext", .assignCurrentContext),
    FlagRow("noQoS", .noQoS),
  ]
}

/// How the block under test is queued: each way the Dispatch overlay turns flags into calls.
/// (`sync(flags:)` is left out: on Linux, flags other than `.barrier` alone trap in the overlay
/// itself, run or no run — its work item lets a non-escaping closure escape.)
enum Route: String, Sendable, CaseIterable, CustomTestStringConvertible {
  /// `async(qos:flags:execute:)`: `dispatch_async`, `dispatch_barrier_async` for `.barrier` alone.
  case async
  /// `async(group:qos:flags:execute:)`: `dispatch_group_async`.
  case groupAsync
  /// `asyncAfter(deadline:qos:flags:execute:)`: `dispatch_after`.
  case asyncAfter
  /// `DispatchWorkItem(qos:flags:block:)` and `async(execute:)`: `dispatch_async`.
  case workItem
  /// `DispatchGroup.notify(qos:flags:queue:execute:)`: `dispatch_group_notify`.
  case groupNotify

  var testDescription: String { rawValue }

  /// Whether a barrier queued this way stays one in this process. Not `groupNotify` under the
  /// thread sanitizer: its interceptor of `dispatch_group_notify` queues every block with
  /// `dispatch_group_notify_f`, no barrier — with or without a run.
  var keepsBarriers: Bool { !(self == .groupNotify && ThreadSanitizer.isActive) }
}

/// A queue of each kind: where a block runs alone, and where only a barrier does.
enum QueueKind: String, Sendable, CaseIterable {
  case serial, concurrent
}

/// A row and a queue: the cases of the table.
struct FlagCase: Sendable, CustomTestStringConvertible {
  let row: FlagRow
  let kind: QueueKind

  var testDescription: String { "\(row.name) on a \(kind.rawValue) queue" }
  /// Whether the block runs alone on its queue: a barrier, or any block of a serial queue.
  var runsAlone: Bool { row.flags.contains(.barrier) || kind == .serial }

  static let all: [FlagCase] = QueueKind.allCases.flatMap { kind in
    FlagRow.all.map { FlagCase(row: $0, kind: kind) }
  }
}

/// What the blocks of one row saw, in the order they saw it.
struct Sightings: Sendable {
  /// The blocks of the queue running now.
  var inFlight = 0
  /// `start X` and `end X`, for every block.
  var log: [String] = []
  /// The blocks in flight the block under test saw as it started (itself included), each time.
  var seenInFlight: [Int] = []
  /// The queue's specific value, as the block under test saw it.
  var specific: [String?] = []
}

/// The key of the value each queue of the table carries: a block reads it with `getSpecific`.
private let queueName = DispatchSpecificKey<String>()

/// The blocks of one row: a block's start and end are recorded under a lock.
private final class Tally: Sendable {
  let sightings = Locked(Sightings())

  func start(_ name: String) {
    sightings.withLock {
      $0.inFlight += 1
      $0.log.append("start \(name)")
    }
  }

  func end(_ name: String) {
    sightings.withLock {
      $0.inFlight -= 1
      $0.log.append("end \(name)")
    }
  }

  /// The block under test: what it sees of its queue, from inside.
  func underTest() {
    sightings.withLock {
      $0.inFlight += 1
      $0.log.append("start M")
      $0.seenInFlight.append($0.inFlight)
      $0.specific.append(DispatchQueue.getSpecific(key: queueName))
    }
    end("M")
  }
}

/// Queues `block` on `queue` the way `route` says, with `row`'s flags. Returns once it is queued;
/// `done` is left when it returned.
private func queueUnderTest(
  _ route: Route, _ row: FlagRow, on queue: DispatchQueue, done: DispatchGroup,
  _ block: @escaping @Sendable () -> Void
) async throws {
  switch route {
  case .async:
    done.enter()
    queue.async(qos: row.qos, flags: row.flags) {
      block()
      done.leave()
    }
  case .groupAsync:
    queue.async(group: done, qos: row.qos, flags: row.flags) { block() }
  case .asyncAfter:
    done.enter()
    queue.asyncAfter(deadline: .now() + 1, qos: row.qos, flags: row.flags) {
      block()
      done.leave()
    }
    // Virtual time: the block is queued once the delay has passed, and holds time still while it
    // runs, so it is over by the end of this sleep.
    try await Task.sleep(for: .seconds(2))
  case .workItem:
    let item = DispatchWorkItem(qos: row.qos, flags: row.flags) { block() }
    done.enter()
    item.notify(queue: .global()) { done.leave() }
    queue.async(execute: item)
  case .groupNotify:
    let trigger = DispatchGroup()
    trigger.enter()
    done.enter()
    trigger.notify(qos: row.qos, flags: row.flags, queue: queue) {
      block()
      done.leave()
    }
    trigger.leave()
  }
}

/// Lets the two earlier blocks of a row go on.
private func openGate(_ gate: DispatchSemaphore) {
  gate.signal()
  gate.signal()
}

/// Waits until `group` is empty: its notify block is outside work of the run.
private func waitUntilEmpty(_ group: DispatchGroup) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    group.notify(queue: .global()) { continuation.resume() }
  }
}

/// Dispatch flags keep their meaning in a deterministic run (Linux, where a run's Dispatch calls
/// are interposed): the block under test is queued between two blocks queued before it and two
/// queued after it, and runs once, on its queue, alone when it is a barrier or its queue serial.
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)), .enabled(if: MainQueueHandOff.isInEffect))
struct DispatchFlagsTests {
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: Route.allCases, FlagCase.all)
  func aBlockQueuedWithFlagsKeepsTheirMeaning(route: Route, flagCase: FlagCase) async throws {
    let tally = Tally()
    let sightings = try await withDeterministicScheduling {
      let queue = DispatchQueue(
        label: "flags", attributes: flagCase.kind == .concurrent ? .concurrent : [])
      queue.setSpecific(key: queueName, value: "flags")
      let done = DispatchGroup()
      // The earlier blocks hold on until the block under test is queued (for `asyncAfter`, at
      // once: virtual time stands still while they run): a barrier queued meanwhile waits for
      // them; a block that is not one may start beside them.
      let gate = DispatchSemaphore(value: 0)
      for name in ["E1", "E2"] {
        queue.async(group: done) {
          tally.start(name)
          gate.wait()
          tally.end(name)
        }
      }
      let holdsEarlierBlocks = route != .asyncAfter
      if !holdsEarlierBlocks { openGate(gate) }
      try await queueUnderTest(route, flagCase.row, on: queue, done: done) { tally.underTest() }
      for name in ["L1", "L2"] {
        queue.async(group: done) {
          tally.start(name)
          tally.end(name)
        }
      }
      if holdsEarlierBlocks { openGate(gate) }
      await waitUntilEmpty(done)
      return tally.sightings.withLock { $0 }
    }
    #expect(sightings.seenInFlight.count == 1, "the block runs exactly once: \(sightings.log)")
    #expect(sightings.specific == ["flags"], "DispatchQueue.getSpecific inside the block")
    #expect(sightings.log.count == 10, "every block ran: \(sightings.log)")
    if flagCase.runsAlone && (flagCase.kind == .serial || route.keepsBarriers) {
      #expect(sightings.seenInFlight == [1], "no other block of the queue beside it")
      let start = try #require(sightings.log.firstIndex(of: "start M"))
      let end = try #require(sightings.log.firstIndex(of: "end M"))
      #expect(end == start + 1, "nothing between its start and its end: \(sightings.log)")
      for earlier in ["E1", "E2"] {
        let ended = try #require(sightings.log.firstIndex(of: "end \(earlier)"))
        #expect(ended < start, "\(earlier) ended before it started: \(sightings.log)")
      }
      for later in ["L1", "L2"] {
        let started = try #require(sightings.log.firstIndex(of: "start \(later)"))
        #expect(started > end, "\(later) started after it ended: \(sightings.log)")
      }
    }
  }

  /// A work item with flags, queued at once or after a delay: `wait()` (or, after a delay,
  /// `notify`) returns once it ran, and a cancelled one never runs, though its `notify` block does.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)), arguments: [false, true], FlagCase.all)
  func aWorkItemIsWaitedForAndACancelledOneNeverRuns(delayed: Bool, flagCase: FlagCase)
    async throws
  {
    let runs = Locked(0)
    let cancelledRuns = Locked(0)
    try await withDeterministicScheduling {
      let queue = DispatchQueue(
        label: "items", attributes: flagCase.kind == .concurrent ? .concurrent : [])
      let row = flagCase.row
      let item = DispatchWorkItem(qos: row.qos, flags: row.flags) { runs.withLock { $0 += 1 } }
      let cancelled = DispatchWorkItem(qos: row.qos, flags: row.flags) {
        cancelledRuns.withLock { $0 += 1 }
      }
      cancelled.cancel()
      for queued in [cancelled, item] {
        if delayed {
          queue.asyncAfter(deadline: .now() + 1, execute: queued)
        } else {
          queue.async(execute: queued)
        }
      }
      if delayed {
        // Not `wait()`: the run would not move its time while a job waits for a work item that
        // the run itself holds until its delay has passed (a known limitation).
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          item.notify(queue: .global()) { continuation.resume() }
        }
      } else {
        item.wait()
      }
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        cancelled.notify(queue: .global()) { continuation.resume() }
      }
    }
    #expect(runs.withLock { $0 } == 1, "the work item ran once before wait() returned")
    #expect(cancelledRuns.withLock { $0 } == 0, "the cancelled work item never ran")
  }

  /// `concurrentPerform` (`dispatch_apply`, not interposed) in a run: every iteration runs once,
  /// and the call returns.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func concurrentPerformRunsEveryIterationOnce() async throws {
    let counts = try await withDeterministicScheduling {
      let counts = Locked([Int](repeating: 0, count: 16))
      DispatchQueue.concurrentPerform(iterations: 16) { index in
        counts.withLock { $0[index] += 1 }
      }
      return counts.withLock { $0 }
    }
    #expect(counts == [Int](repeating: 1, count: 16))
  }

  /// `dispatchPrecondition(condition: .onQueueAsBarrier)` holds inside every barrier of the table;
  /// in a child process, where a trap fails this test rather than ending the suite.
  @Test(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
  func aBarrierIsOnItsQueueAsABarrier() async throws {
    #if canImport(Glibc)
      await #expect(processExitsWith: .success) {
        for route in Route.allCases where route.keepsBarriers {
          for row in FlagRow.all where row.flags.contains(.barrier) {
            try await withDeterministicScheduling {
              let queue = DispatchQueue(label: "barrier", attributes: .concurrent)
              let done = DispatchGroup()
              queue.async(group: done) {}
              try await queueUnderTest(route, row, on: queue, done: done) {
                dispatchPrecondition(condition: .onQueueAsBarrier(queue))
              }
              await waitUntilEmpty(done)
            }
          }
        }
      }
    #endif
  }
}
