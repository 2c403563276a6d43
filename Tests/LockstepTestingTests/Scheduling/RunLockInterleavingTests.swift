import Foundation
import LockstepTestSupport
import Testing

@testable import LockstepTesting

/// Spins for a random amount of CPU work: random timings between the steps, never a sleep.
private func busyWork(_ random: inout SplitMix64) {
  var sink = random.next()
  for _ in 0..<Int.random(in: 0..<20_000, using: &random) { sink = sink &* 31 &+ 7 }
  if sink == 42 { print("") }  // keeps the loop
}

/// What the participants of one round did.
private struct Tally: Sendable {
  var finished = 0
  var ran = 0
  var cancelledWhileWaiting = 0
  var unexpected: [String] = []
}

/// The process's run lock under every kind of waiter at once: runs, explorations that hand the
/// lock over at each schedule while others wait (a zero slice), blocking runs on threads of their
/// own, and waiters cancelled at random moments, with random CPU work between their steps. Every
/// waiter must get the lock or, cancelled, stop waiting; the round must end. A lost wakeup leaves
/// a participant suspended or blocked for good: the bounded wait below fails then, and the
/// process goes on. `scripts/stress.sh 200 RunLockInterleaving` repeats it (TSAN=1 too).
@Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct RunLockInterleavingTests {
  static let runs = 12
  static let explorations = 3
  static let schedulesEach = 20
  static let blockingRuns = 3
  static let cancelled = 8

  @Test(arguments: [UInt64(1), 2, 3])
  func everyWaiterGetsTheLockOrStopsWaitingAndTheRoundEnds(round: UInt64) async throws {
    let seed = 0x5EED_0000 &+ round
    print("RunLockInterleavingTests: seed \(seed)")
    let tally = Locked(Tally())
    let total = Self.runs + Self.explorations + Self.blockingRuns + Self.cancelled
    var random = SplitMix64(seed: seed)
    try await RunSerializer.shared.withLockSlice(.zero) {
      for index in 0..<Self.runs {
        let mySeed = random.next()
        Task {
          var mine = SplitMix64(seed: mySeed)
          busyWork(&mine)
          do {
            try await withDeterministicScheduling {
              await withTaskGroup(of: Void.self) { group in
                group.addTask { await Task.yield() }
                group.addTask {}
              }
            }
            tally.withLock { $0.ran += 1 }
          } catch {
            tally.withLock { $0.unexpected.append("run \(index): \(error)") }
          }
          busyWork(&mine)
          tally.withLock { $0.finished += 1 }
        }
      }
      for index in 0..<Self.explorations {
        let mySeed = random.next()
        Task {
          var mine = SplitMix64(seed: mySeed)
          busyWork(&mine)
          let (result, issues) = await collectingIssues {
            await explore(.random(schedules: Self.schedulesEach, seed: UInt64(index))) {
              await withTaskGroup(of: Void.self) { group in
                group.addTask { await Task.yield() }  // choice points for the exploration
                group.addTask { await Task.yield() }
              }
            }
          }
          tally.withLock { tally in
            // A warning that it waited long for the lock is no failure (a loaded machine).
            let failures = issues.filter { !$0.message.contains("for the process's exploration lock") }
            if result.schedulesRun == Self.schedulesEach && failures.isEmpty {
              tally.ran += 1
            } else {
              tally.unexpected.append("exploration \(index): \(result) \(issues.map(\.message))")
            }
            tally.finished += 1
          }
        }
      }
      for index in 0..<Self.blockingRuns {
        let mySeed = random.next()
        // Threads of their own: the blocking form must not block a thread of the cooperative pool.
        Thread {
          var mine = SplitMix64(seed: mySeed)
          busyWork(&mine)
          do {
            _ = try withDeterministicSchedulingBlocking { await Task.yield() }
            tally.withLock { $0.ran += 1 }
          } catch {
            tally.withLock { $0.unexpected.append("blocking run \(index): \(error)") }
          }
          tally.withLock { $0.finished += 1 }
        }.start()
      }
      for index in 0..<Self.cancelled {
        let mySeed = random.next()
        let waiter = Task {
          do {
            try await withDeterministicScheduling { await Task.yield() }
            tally.withLock { $0.ran += 1 }
          } catch is RunLockWaitCancelled {
            tally.withLock { $0.cancelledWhileWaiting += 1 }
          } catch {
            tally.withLock { $0.unexpected.append("cancelled run \(index): \(error)") }
          }
          tally.withLock { $0.finished += 1 }
        }
        Task {
          var mine = SplitMix64(seed: mySeed)
          busyWork(&mine)
          waiter.cancel()  // before, during or after its wait for the lock
        }
      }
      // The failure bound: a participant that never ends fails this wait.
      try await waitUntil("all \(total) participants ended", timeout: .seconds(30)) {
        tally.value.finished == total
      }
    }
    let done = tally.value
    #expect(done.unexpected.isEmpty, "\(done.unexpected)")
    #expect(done.ran + done.cancelledWhileWaiting == total, "\(done)")
    #expect(done.ran >= Self.runs + Self.explorations + Self.blockingRuns, "\(done)")
  }
}
